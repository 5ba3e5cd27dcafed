/**
 * The small programs that run a script inside the sandbox, one per language. Each reads
 * `{code, args}` as JSON on stdin, writes the script into the working directory (the scratch
 * dir, so tracebacks show its lines), calls `main` with the arguments (Python: keywords, as
 * RAGFlow does; JavaScript: one object), and writes one JSON result to fd 3:
 * `{ok: true, value}` or `{ok: false, kind?, error, traceback?}`. A separate channel keeps the
 * script's own prints out of the result.
 */

/** Python: `python3 -I -B -u -X utf8 -c PYTHON_WRAPPER`. */
export const PYTHON_WRAPPER = String.raw`
import json, math, os, sys, traceback, types

def _plain(o):
    # Values json cannot write: numpy scalars and arrays, sets, bytes; anything else as text.
    for attr in ('tolist', 'item'):
        if callable(getattr(o, attr, None)):
            try:
                return getattr(o, attr)()
            except Exception:
                pass
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    if isinstance(o, (bytes, bytearray)):
        return o.decode('utf-8', 'replace')
    return str(o)

def _finite(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    return v

def _run():
    pid = os.getpid()
    channel = os.fdopen(3, 'w', encoding='utf-8')

    def emit(result):
        if os.getpid() != pid:
            return  # a process the script forked never reports
        try:
            text = json.dumps(result, ensure_ascii=False, allow_nan=False, default=_plain)
        except ValueError:
            text = json.dumps(_finite(json.loads(json.dumps(result, ensure_ascii=False, default=_plain))), ensure_ascii=False)
        except Exception as e:
            text = json.dumps({'ok': False, 'error': 'main() returned a value that cannot be sent back as JSON: %s' % e})
        channel.write(text)
        channel.flush()

    def failure(e):
        te = traceback.TracebackException.from_exception(e)
        te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename != '<string>'])
        return {'ok': False, 'kind': 'memory' if isinstance(e, MemoryError) else 'error',
                'error': ''.join(te.format_exception_only()).strip(), 'traceback': ''.join(te.format())}

    try:
        request = json.loads(sys.stdin.buffer.read().decode('utf-8'))
        path = os.path.join(os.getcwd(), 'main.py')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(request['code'])
        sys.path.insert(0, os.getcwd())
        module = types.ModuleType('main')
        module.__file__ = path
        sys.modules['main'] = module
        exec(compile(request['code'], path, 'exec'), module.__dict__)
        main = module.__dict__.get('main')
        if not callable(main):
            emit({'ok': False, 'error': 'The script must define a main() function'})
            return
        value = main(**request['args'])
        if hasattr(value, '__await__'):
            import asyncio
            value = asyncio.run(value)
        emit({'ok': True, 'value': value})
    except SystemExit as e:
        emit({'ok': False, 'error': 'The script exited (SystemExit %r) before main() returned' % (e.code,)})
    except BaseException as e:
        emit(failure(e))
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        # Exit at once: threads or children the script left behind must not keep the run alive.
        os._exit(0)

_run()
`;

/** JavaScript: `node --max-old-space-size=N -e NODE_WRAPPER`. */
export const NODE_WRAPPER = String.raw`
'use strict';
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');

function emit(result) {
  let text;
  try {
    text = JSON.stringify(result, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  } catch (e) {
    text = JSON.stringify({ ok: false, error: 'main() returned a value that cannot be sent back as JSON: ' + e.message });
  }
  fs.writeSync(3, text);
}

function failure(e) {
  const error = e && e.message !== undefined ? (e.name || 'Error') + ': ' + e.message : String(e);
  const memory = e instanceof RangeError && /allocation failed|array length|buffer/i.test(e.message);
  const trace = String((e && e.stack) || error).split('\n').filter((l) => !/\[eval\]|node:internal/.test(l)).join('\n');
  return { ok: false, kind: memory ? 'memory' : 'error', error, traceback: trace };
}

(async () => {
  try {
    const request = JSON.parse(fs.readFileSync(0, 'utf8'));
    // ES module syntax (export function main) is loaded as a module, anything else as CommonJS.
    const esm = /^\s*export\s/m.test(request.code);
    const file = path.join(process.cwd(), esm ? 'main.mjs' : 'main.js');
    const epilogue = '\n;if (typeof main === "function" && !(module.exports && typeof module.exports.main === "function")) module.exports.main = main;\n';
    fs.writeFileSync(file, esm ? request.code : request.code + epilogue);
    const mod = esm ? await import(pathToFileURL(file).href) : require(file);
    const fromDefault = mod && mod.default && (typeof mod.default === 'function' ? mod.default : mod.default.main);
    const main = typeof mod === 'function' ? mod : mod && typeof mod.main === 'function' ? mod.main : fromDefault;
    if (typeof main !== 'function') {
      emit({ ok: false, error: 'The script must define a main() function' });
    } else {
      const value = await main(request.args);
      emit({ ok: true, value: value === undefined ? null : value });
    }
  } catch (e) {
    emit(failure(e));
  }
  // Exit at once: timers or handles the script left open must not keep the run alive.
  process.exit(0);
})();
`;
