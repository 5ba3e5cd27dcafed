/**
 * # Pipeline components
 *
 * RAGFlow's ingestion pipeline components (`rag/flow/`), run as steps: each reads the payload the
 * step before it produced (RAGFlow's `*FromUpstream`: `name`, `file`, `output_format` and one of
 * `json` / `markdown` / `text` / `html` / `chunks`) and returns the next, carrying forward what it
 * does not replace, as RAGFlow passes every output on. Params are parsed at compile time
 * (src/core/pipeline/components/*.ts, RAGFlow's names and defaults).
 *
 * - **File** hands on the document (`name`, `file`).
 * - **Parser** picks the setup whose suffixes match the file and outputs its `output_format`
 *   (./parser.ts): PDF (text layer via unpdf; DeepDOC's layout analysis/OCR and the MinerU,
 *   Docling, VLM methods are not available and fail with COMPONENT_UNSUPPORTED), Markdown,
 *   text & code, HTML, DOCX (mammoth), spreadsheets (xlsx/csv via exceljs), .eml emails, slides
 *   (.pptx, a text item per slide), pictures (the vision model), audio and video (speech to
 *   text); .doc, .ppt, .msg and EPUB fail with COMPONENT_UNSUPPORTED naming the type. `remove_toc` and `remove_header_footer` are read but
 *   not applied (RAGFlow finds those with DeepDOC's layout labels and the file's outline); a
 *   setup's missing keys take RAGFlow's defaults for its type.
 * - **TokenChunker** (./tokenChunker.ts) and **TitleChunker** (./titleChunker.ts) follow RAGFlow's
 *   algorithms and tests (backtick-quoted delimiters, overlap carrying the previous chunk's tail
 *   and coordinates, children delimiters with `mom`, media context, heading hierarchy, group
 *   method, token cap). Tokens are counted by our counter (words; CJK characters one each), not
 *   tiktoken's cl100k, so sizes near a boundary can differ; TitleChunker takes levels from the
 *   patterns only (RAGFlow can also read a PDF outline).
 * - **OneChunker**, **ManualChunker**, **PageChunker**, **QAChunker**, **TableChunker** (RAGFlow's
 *   Go engine, one file each) and the sectioned **Extractor** (./extractorSections.ts): see
 *   docs/COMPONENTS.md, "Ingestion pipeline components".
 * - **Extractor** (./extractor.ts) asks the model once per chunk with the chunk's text in place
 *   of the `{…@chunks}` reference and writes the answer (think part removed) to `field_name`; its
 *   per-chunk calls are items (`planItems`/`runItems`/`applyItems`) a carrier batches durably.
 *   `field_name: "toc"` (a generated table of contents) is refused at compile time. A reference
 *   must name an earlier step whose value reaches this one unreplaced (checked at compile time:
 *   steps receive only their predecessor's output, which carries earlier values forward).
 * - **Tokenizer** (./tokenizer.ts) writes the full-text fields and embeds `fields` with the
 *   dataset's model, mixing the file name in by `filename_embd_weight`.
 * - **Compiler** (./compiler.ts) normalizes its input into chunks and passes them on: RAGFlow's
 *   compilation templates do not exist here, so every group resolves to none (RAGFlow's own
 *   behaviour for a group without active templates); an empty group is accepted.
 *
 * Chunk fields keep RAGFlow's names (see ./fields.ts for how a store reads them): `text`;
 * `doc_type_kwd` (`text`/`table`/`image`); `mom` (the parent of a child chunk); `position_int`,
 * `page_num_int`, `top_int` (PDF coordinates); Extractor fields as named (`summary`, `keywords`,
 * `questions`, `metadata`, …); Tokenizer's `important_kwd` (from `keywords`), `question_kwd` (from
 * `questions`), `content_ltks`/`title_tks`/`question_tks`/`important_tks` (terms),
 * `chunk_order_int`, and the vector `q_<dim>_vec`.
 */
export { pipelineSteps } from './steps';
export { createPipelineServices, pipelineChat, type PipelineServiceDeps, type PipelineServiceScope } from './services';
export { runPipelineInProcess, type InProcessOptions } from './inProcess';
export { documentMetadata, mergeMetadata, metadataOf, splitKeywords, splitQuestions, vectorOf } from './fields';
export type * from './contract';
