// Formatting (`npm run format`). printWidth 160 and single quotes match how the code is written,
// so formatting the tree moves as few lines as it can.
/** @type {import('prettier').Config} */
export default {
  printWidth: 160,
  singleQuote: true,
  trailingComma: 'all',
  arrowParens: 'always',
  semi: true,
};
