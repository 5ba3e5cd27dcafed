/**
 * YahooFinance's tables as RAGFlow's report prints them (pandas `to_markdown`): financial
 * statements with yfinance's row names ("Total Assets") and one column per reporting date, newest
 * first; and the fundamentals-timeseries keys each statement asks for.
 */

export interface Series {
  /** The timeseries key without its period prefix, e.g. `TotalAssets`. */
  key: string;
  points: Array<{ date: string; value: number | null }>;
}

export const INCOME = [
  'TotalRevenue',
  'CostOfRevenue',
  'GrossProfit',
  'OperatingExpense',
  'OperatingIncome',
  'ResearchAndDevelopment',
  'SellingGeneralAndAdministration',
  'InterestExpense',
  'PretaxIncome',
  'TaxProvision',
  'NetIncome',
  'NetIncomeCommonStockholders',
  'BasicEPS',
  'DilutedEPS',
  'BasicAverageShares',
  'DilutedAverageShares',
  'EBIT',
  'EBITDA',
] as const;

export const BALANCE = [
  'TotalAssets',
  'CurrentAssets',
  'CashAndCashEquivalents',
  'TotalLiabilitiesNetMinorityInterest',
  'CurrentLiabilities',
  'TotalEquityGrossMinorityInterest',
  'StockholdersEquity',
  'CommonStockEquity',
  'TangibleBookValue',
  'TotalDebt',
  'NetDebt',
  'LongTermDebt',
  'WorkingCapital',
  'InvestedCapital',
  'OrdinarySharesNumber',
  'ShareIssued',
] as const;

export const CASH_FLOW = [
  'OperatingCashFlow',
  'InvestingCashFlow',
  'FinancingCashFlow',
  'FreeCashFlow',
  'CapitalExpenditure',
  'EndCashPosition',
  'BeginningCashPosition',
  'IssuanceOfDebt',
  'RepaymentOfDebt',
  'RepurchaseOfCapitalStock',
  'CashDividendsPaid',
  'DepreciationAndAmortization',
  'StockBasedCompensation',
  'ChangeInWorkingCapital',
] as const;

/** yfinance's `camel2title`: `TotalAssets` → `Total Assets`, `BasicEPS` → `Basic EPS`. */
export function prettyName(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .trim();
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return 'nan';
  if (typeof v === 'number') return String(v);
  return String(v)
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
}

/** A markdown table in pandas' layout: header, alignment row, one row per entry. */
export function markdownTable(header: readonly string[], rows: readonly unknown[][]): string {
  const lines = [`| ${header.map(cell).join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? ':---' : '---:')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

/** A statement: one row per key that has data (in `order`), one column per date, newest first. */
export function statementTable(series: readonly Series[], order: readonly string[]): string {
  const dates = [...new Set(series.flatMap((s) => s.points.map((p) => p.date)))].filter(Boolean).sort().reverse();
  const byKey = new Map(series.map((s) => [s.key, s]));
  const rows = order
    .map((k) => byKey.get(k))
    .filter((s): s is Series => !!s && s.points.length > 0)
    .map((s) => [prettyName(s.key), ...dates.map((d) => s.points.find((p) => p.date === d)?.value ?? null)]);
  return markdownTable(['', ...dates.map((d) => `${d} 00:00:00`)], rows);
}
