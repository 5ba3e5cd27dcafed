/**
 * Reading a server-sent event stream from a fetch response (fetch, not EventSource, so the API key
 * travels in a header). Calls `onMessage(text, id)` for each message with data; returns when the
 * stream ends, or as soon as `onMessage` returns true (the reader is then released). Comment lines
 * (keepalives) are skipped.
 */
export async function readSse(res, onMessage) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let id = null;
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0 && onMessage(data.join('\n'), id) === true) {
        await reader.cancel();
        return;
      }
    }
  }
}
