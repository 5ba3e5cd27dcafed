/**
 * The offline demo model: what `npm start` answers with when no model is configured, so the
 * example canvases run on a fresh machine. Every answer says it comes from the demo model.
 * Deterministic; classification prompts get the best-matching category by shared words.
 */

export const DEMO_LABEL = '[offline demo model: set LLM_BASE_URL (+ LLM_API_KEY) or a provider key such as OPENAI_API_KEY for real answers]';

interface Msg {
  role: string;
  content: unknown;
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Categories listed in a Categorize system prompt (` - name` lines before the descriptions). */
function categories(system: string): string[] {
  const head = system.split('What each category means')[0] ?? '';
  return head
    .split('\n')
    .map((l) => /^\s*-\s+(.+)$/.exec(l)?.[1]?.trim())
    .filter((c): c is string => Boolean(c));
}

function classify(system: string, user: string): string | null {
  const names = categories(system);
  if (names.length === 0) return null;
  const real = user.split('---- Real Data ----').pop() ?? user;
  const query = words(real.replace(/\b(USER|ASSISTANT):/g, ''));
  let best = names[names.length - 1]!;
  let bestScore = 0;
  for (const name of names) {
    // A description runs to the next category or to the instructions that follow the list.
    const section = system.split(`Category: ${name}\n`)[1]?.split(/\n------\n|\n---- /)[0] ?? '';
    const examples = [...system.matchAll(new RegExp(`USER: "([^"]*)" → ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'g'))].map((m) => m[1]).join(' ');
    const vocabulary = words(`${name} ${section} ${examples}`);
    let score = 0;
    for (const w of query) if (vocabulary.has(w)) score += 1;
    if (score > bestScore) {
      best = name;
      bestScore = score;
    }
  }
  return best;
}

/** The demo model's answer to a chat request. */
export function demoAnswer(messages: Msg[]): string {
  const text = (m: Msg | undefined) => (typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? ''));
  const system = text(messages.find((m) => m.role === 'system'));
  const user = text([...messages].reverse().find((m) => m.role === 'user'));
  if (system.includes('You classify user questions')) {
    const category = classify(system, user);
    if (category) return category;
  }
  if (/JSON schema/i.test(system)) return '{}';
  const asked = user.trim().replace(/\s+/g, ' ').slice(0, 200);
  return `${DEMO_LABEL} You said: "${asked}". A real model would answer here; the canvas ran end to end.`;
}
