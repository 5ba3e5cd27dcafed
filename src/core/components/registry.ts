/**
 * The component registry: every `component_name` the product knows, mapped to its definition.
 * One typed map, no if-chains on names. Importing it never pulls I/O into workflow code: the
 * definitions are pure and their side effects live in `activities/`.
 */
import { Agent } from './Agent';
import { Answer } from './Answer';
import { Begin } from './Begin';
import { Bing } from './Bing';
import { Browser } from './Browser';
import { Categorize } from './Categorize';
import { CodeExec } from './CodeExec';
import { DataOperations } from './DataOperations';
import { DocGenerator } from './DocGenerator';
import { DuckDuckGo } from './DuckDuckGo';
import { Email } from './Email';
import { ExcelProcessor } from './ExcelProcessor';
import { ExeSQL } from './ExeSQL';
import { ExitLoop } from './ExitLoop';
import { Generate } from './Generate';
import { Google } from './Google';
import { Invoke } from './Invoke';
import { InvokeCanvas } from './InvokeCanvas';
import { Iteration } from './Iteration';
import { IterationItem } from './IterationItem';
import { ListOperations } from './ListOperations';
import { LLM } from './LLM';
import { Loop } from './Loop';
import { LoopItem } from './LoopItem';
import { Message } from './Message';
import { Retrieval } from './Retrieval';
import { SearXNG } from './SearXNG';
import { StringTransform } from './StringTransform';
import { Switch } from './Switch';
import { TavilyExtract } from './TavilyExtract';
import { TavilySearch } from './TavilySearch';
import type { ComponentDef, ExecutionParams } from './definition';
// RAGFlow's agent/tools catalog (issue 14).
import { AkShare } from './AkShare';
import { ArXiv } from './ArXiv';
import { BGPT } from './BGPT';
import { Crawler } from './Crawler';
import { DeepL } from './DeepL';
import { GitHub } from './GitHub';
import { GoogleScholar } from './GoogleScholar';
import { Jin10 } from './Jin10';
import { KeenableSearch } from './KeenableSearch';
import { PubMed } from './PubMed';
import { QWeather } from './QWeather';
import { QueritContents } from './QueritContents';
import { QueritSearch } from './QueritSearch';
import { TuShare } from './TuShare';
import { WenCai } from './WenCai';
import { YahooFinance } from './YahooFinance';
import { UserFillUp } from './UserFillUp';
import { VariableAggregator } from './VariableAggregator';
import { VariableAssigner } from './VariableAssigner';
import { Wikipedia } from './Wikipedia';

/** A definition with its params type erased, as stored in the registry. */
export type AnyComponentDef = ComponentDef<ExecutionParams>;

const definitions = {
  Agent,
  Answer,
  Begin,
  Bing,
  Browser,
  Categorize,
  CodeExec,
  DataOperations,
  DocGenerator,
  DuckDuckGo,
  Email,
  ExcelProcessor,
  ExeSQL,
  ExitLoop,
  Generate,
  Google,
  Invoke,
  InvokeCanvas,
  Iteration,
  IterationItem,
  ListOperations,
  LLM,
  Loop,
  LoopItem,
  Message,
  Retrieval,
  SearXNG,
  StringTransform,
  Switch,
  TavilyExtract,
  TavilySearch,
  UserFillUp,
  VariableAggregator,
  VariableAssigner,
  Wikipedia,
  AkShare,
  ArXiv,
  BGPT,
  Crawler,
  DeepL,
  GitHub,
  GoogleScholar,
  Jin10,
  KeenableSearch,
  PubMed,
  QWeather,
  QueritContents,
  QueritSearch,
  TuShare,
  WenCai,
  YahooFinance,
} satisfies Record<string, AnyComponentDef>;

export type ComponentName = keyof typeof definitions;

const registry: Readonly<Record<string, AnyComponentDef>> = definitions;

for (const [key, def] of Object.entries(registry)) {
  if (def.name !== key) throw new Error(`component registry key ${key} does not match its definition name ${def.name}`);
}

/** The definition for a `component_name`, or undefined when the name is unknown. */
export function componentDef(name: string): AnyComponentDef | undefined {
  return Object.prototype.hasOwnProperty.call(registry, name) ? registry[name] : undefined;
}

/** All known component names, sorted. */
export function componentNames(): string[] {
  return Object.keys(registry).sort();
}
