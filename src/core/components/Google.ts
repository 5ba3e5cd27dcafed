/** Google: web search through Google's search API. Params follow RAGFlow's GoogleParam. */
import { keyedWebSearch } from './searchTool';

export const Google = keyedWebSearch('Google', { country: 'us' });
