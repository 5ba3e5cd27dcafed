/**
 * A local stand-in for DuckDuckGo: the HTML results page (`POST /html/`, DuckDuckGo's markup:
 * an ad first, results linked through `/l/?uddg=`, a "Next" form to the second page), the search
 * page that hands out the `vqd` token (`GET /?q=`), and the news JSON endpoint (`GET /news.js`).
 * The query `bot-challenge` gets the HTTP 202 anomaly page DuckDuckGo shows throttled clients.
 */
import { html, json, startStandIn, type StandIn } from './httpStandIn';

const VQD = '4-318205713963258416781632901';
const PER_PAGE = 10;
const TOTAL = 15;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The target URL of web result `i` for query `q`. */
export const ddgResultUrl = (q: string, i: number) => `https://web.example/${encodeURIComponent(q)}/${i}?ref=a&b=c`;

function result(q: string, i: number): string {
  const wrapped = `//duckduckgo.com/l/?uddg=${encodeURIComponent(ddgResultUrl(q, i))}&amp;rut=f00${i}`;
  return `<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title">
      <a rel="nofollow" class="result__a" href="${wrapped}">Result ${i} about <b>${esc(q)}</b> &amp; more</a>
    </h2>
    <div class="result__extras"><div class="result__extras__url">
      <span class="result__icon"><img class="result__icon__img" width="16" height="16" alt="" src="//external-content.duckduckgo.com/ip3/web.example.ico" name="i15" /></span>
      <a class="result__url" href="${wrapped}">web.example/${esc(q)}/${i}</a>
    </div></div>
    <a class="result__snippet" href="${wrapped}">Snippet ${i}: <b>${esc(q)}</b> explained &#x27;simply&#x27;.</a>
    <div class="clear"></div>
  </div>
</div>`;
}

const ad = `<div class="result results_links results_links_deep result--ad ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;ad_provider=bingv7aa&amp;u3=x">Buy it now</a></h2>
    <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=ads.example">Sponsored.</a>
  </div>
</div>`;

function page(q: string, start: number): string {
  const items = [];
  for (let i = start + 1; i <= Math.min(start + PER_PAGE, TOTAL); i++) items.push(result(q, i));
  const hidden = (fields: Record<string, string>) =>
    Object.entries(fields)
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${esc(v)}" />`)
      .join('\n');
  const next =
    start + PER_PAGE < TOTAL
      ? `<div class="nav-link"><form action="/html/" method="post">
<input type="submit" class='btn btn--alt' value="Next" />
${hidden({ q, s: String(start + PER_PAGE), nextParams: '', v: 'l', o: 'json', dc: String(start + PER_PAGE + 1), api: 'd.js', vqd: VQD, kl: 'wt-wt' })}
</form></div>`
      : `<div class="nav-link"><form action="/html/" method="post"><input type="submit" class='btn btn--alt' value="Previous" />${hidden({ q, s: '0' })}</form></div>`;
  return `<!DOCTYPE html><html><head><title>${esc(q)} at DuckDuckGo</title></head><body>
<form id="search_form" name="x" action="/html/" method="post"><input class="search__input" type="text" name="q" value="${esc(q)}" /><input class="search__button" type="submit" value="S" /></form>
<div class="serp__results"><div id="links" class="results">
${start === 0 ? ad : ''}
${items.join('\n')}
${next}
</div></div></body></html>`;
}

const challenge = `<html><body><div class="anomaly-modal__modal"><div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div></div></body></html>`;

export async function startDuckDuckGoServer(): Promise<StandIn> {
  return startStandIn((req) => {
    if (req.path === '/html/' && req.method === 'POST') {
      const q = req.form.q ?? '';
      if (q === 'bot-challenge') return html(challenge, 202);
      if (req.form.s && req.form.vqd !== VQD) return html('<html>bad pagination token</html>', 400);
      return html(page(q, Number(req.form.s ?? 0)));
    }
    if (req.path === '/' && req.method === 'GET') {
      const q = req.query.q ?? '';
      return html(
        `<html><head><script>DDG.deep.initialize('/d.js?q=${encodeURIComponent(q)}&l=wt-wt&s=0&dl=en&ct=US&vqd=${VQD}&p_ent=&ex=-1');</script></head><body></body></html>`,
      );
    }
    if (req.path === '/news.js') {
      if (req.query.vqd !== VQD) return html('<html>Forbidden</html>', 403);
      const q = req.query.q ?? '';
      const results = [1, 2, 3].map((i) => ({
        date: 1_731_400_000 + i * 3600,
        excerpt: `Breaking ${i}: <b>${esc(q)}</b> in the news.`,
        image: `https://img.example/${i}.jpg`,
        relative_time: `${i} hours ago`,
        source: `Example News ${i}`,
        syndicate: 'Bing',
        title: `${q} headline ${i}`,
        url: `https://news.example/${encodeURIComponent(q)}/${i}`,
        use_relevancy: 0,
      }));
      return json({ ads: [], query: q, queryEncoded: encodeURIComponent(q), response_type: 'places', results, vqd: { [q]: VQD } });
    }
    return html('<h1>Not Found</h1>', 404);
  });
}
