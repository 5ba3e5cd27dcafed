/** Bing: web search through Bing's search API. Params follow RAGFlow's BingParam. */
import { keyedWebSearch } from './searchTool';

export const Bing = keyedWebSearch('Bing', { channel: 'Webpages', country: 'CH' });
