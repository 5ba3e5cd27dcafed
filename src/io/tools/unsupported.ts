/**
 * RAGFlow tools that wrap a Python library with no protocol to speak: their components load and
 * validate, and a run that reaches them fails with COMPONENT_UNSUPPORTED saying what to use
 * instead (docs/COMPONENTS.md, "Tools").
 */
import { AppError } from '../../errors';
import type { ToolExecutor } from './executor';

function unsupported(message: string): ToolExecutor {
  return () => Promise.reject(new AppError('COMPONENT_UNSUPPORTED', message));
}

/** RAGFlow: `pywencai`, commented out in RAGFlow itself (its WenCai always answers nothing). */
export const wencaiUnsupported = unsupported(
  "WenCai cannot run in this build: iwencai.com has no public API (RAGFlow's own WenCai has its pywencai call disabled and returns nothing). For stock screening data use YahooFinance or TuShare, or an MCP server for iwencai.",
);
