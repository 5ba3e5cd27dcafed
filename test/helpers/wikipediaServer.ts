/**
 * A local stand-in for Wikipedia's MediaWiki Action API (`GET /{lang}/w/api.php`; tests set
 * WIKIPEDIA_BASE_URL to `<url>/{lang}`): `list=search` finds titles, `prop=extracts|info|pageprops`
 * by `pageids` gives plain-text introductions, URLs and the disambiguation flag, pages in an
 * order of its own as MediaWiki does. Bad parameters get MediaWiki's `{error: {code, info}}`.
 */
import { json, startStandIn, type StandIn } from './httpStandIn';

interface Page {
  pageid: number;
  title: string;
  extract: string;
  disambiguation: boolean;
}

/** The articles a search for `q` finds, best first; the second is a disambiguation page. */
export function wikiPages(q: string, lang: string): Page[] {
  const titles = [q, `${q} (disambiguation)`, `History of ${q}`, `${q} in popular culture`, `${q} theory`];
  return titles.map((title, i) => ({
    pageid: 1000 + i,
    title,
    extract: i === 1 ? `${q} may refer to:` : `${title} [${lang}] is article ${i} about ${q}.\n\nIts second paragraph.`,
    disambiguation: i === 1,
  }));
}

const fail = (code: string, info: string) =>
  json({ error: { code, info, docref: 'See https://www.mediawiki.org/w/api.php for API usage.' }, servedby: 'stand-in' });

export async function startWikipediaServer(): Promise<StandIn> {
  // Which query each page id belongs to, so an extracts request can be answered.
  const owner = new Map<number, { q: string; lang: string }>();
  return startStandIn((req) => {
    const m = /^\/([a-z0-9-]+)\/w\/api\.php$/.exec(req.path);
    if (!m) return json({ error: 'not found' }, 404);
    const lang = m[1]!;
    const p = req.query;
    if (p.format !== 'json' || p.formatversion !== '2' || p.action !== 'query')
      return fail('badvalue', 'this stand-in speaks format=json, formatversion=2, action=query');
    if (p.list === 'search') {
      if (p.srsearch === 'bad-request') return fail('invalidparammix', 'The parameters "srsearch" and "bad" can not be used together.');
      const limit = Number(p.srlimit ?? 10);
      const hits = wikiPages(p.srsearch ?? '', lang).slice(0, limit);
      for (const h of hits) owner.set(h.pageid, { q: p.srsearch ?? '', lang });
      return json({
        batchcomplete: true,
        continue: { sroffset: limit, continue: '-||' },
        query: { searchinfo: { totalhits: 5 }, search: hits.map((h) => ({ ns: 0, title: h.title, pageid: h.pageid })) },
      });
    }
    if (p.prop === 'extracts|info|pageprops' && p.pageids) {
      if (p.exintro !== '1' || p.explaintext !== '1' || p.inprop !== 'url') return fail('badvalue', 'expected exintro, explaintext and inprop=url');
      const ids = p.pageids.split('|').map(Number);
      if (ids.length > 20) return fail('toomanyvalues', 'Too many values supplied for parameter "pageids". The limit is 50.');
      const pages = ids
        .map((id) => {
          const o = owner.get(id);
          const page = o ? wikiPages(o.q, o.lang).find((x) => x.pageid === id) : undefined;
          if (!page) return { pageid: id, missing: true };
          const url = `https://${lang}.wikipedia.org/wiki/${encodeURIComponent(page.title.replace(/ /g, '_'))}`;
          return {
            pageid: id,
            ns: 0,
            title: page.title,
            extract: page.extract,
            contentmodel: 'wikitext',
            pagelanguage: lang,
            fullurl: url,
            canonicalurl: url,
            ...(page.disambiguation ? { pageprops: { disambiguation: '' } } : {}),
          };
        })
        .reverse();
      return json({ batchcomplete: true, query: { pages } });
    }
    return fail('badvalue', `unsupported request ${JSON.stringify(p)}`);
  });
}
