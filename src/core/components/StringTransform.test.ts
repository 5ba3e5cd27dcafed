/**
 * StringTransform against RAGFlow's agent/component/string_transform.py (and Message.get_kwargs,
 * which its merge uses): every row was run through RAGFlow's own class with Jinja2 3.1's
 * SandboxedEnvironment and its result or its error written here. A merge's template sees only
 * the references its script holds (`{begin@name}` → `begin_name`): the rows without one render
 * with nothing defined, as in RAGFlow.
 */
import { describe, expect, it } from 'vitest';
import { runInline } from '../../../test/helpers/componentTable';
import { StringTransform } from './StringTransform';
import type { AnyComponentDef } from './registry';

interface Row {
  title: string;
  params: Record<string, unknown>;
  values: Record<string, unknown>;
  result?: unknown;
  error?: string;
  /** Fails as RAGFlow does, with our own wording of a template syntax error. */
  fails?: boolean;
}

/** What every row's references resolve to (RAGFlow was run with the same). */
const VALUES: Record<string, unknown> = {
  'begin@line': 'a,b,,c',
  'begin@cn': '甲，乙,丙',
  'begin@list': ['x', 'y'],
  'begin@none': null,
  'begin@zero': 0,
  'begin@dict': { k: 1 },
  'begin@name': 'Ada',
  'begin@items': ['a', 1, null, true],
  'begin@obj': { n: 1, s: 'é' },
  'begin@n': '3',
};

/** The same, with a user query (`sys.query`). */
const WITH_QUERY: Record<string, unknown> = { ...VALUES, 'sys.query': 'hey' };

const rows: Row[] = [
  { title: "split begin@line at [',']", params: { method: 'split', split_ref: 'begin@line', delimiters: [','] }, values: VALUES, result: ['a', 'b', '', 'c'] },
  {
    title: "split begin@cn at ['，', ',']",
    params: { method: 'split', split_ref: 'begin@cn', delimiters: ['，', ','] },
    values: VALUES,
    result: ['甲', '乙', '丙'],
  },
  {
    title: "split begin@line at [',,', ',']",
    params: { method: 'split', split_ref: 'begin@line', delimiters: [',,', ','] },
    values: VALUES,
    result: ['a', 'b', 'c'],
  },
  { title: "split begin@line at ['--']", params: { method: 'split', split_ref: 'begin@line', delimiters: ['--'] }, values: VALUES, result: ['a,b,,c'] },
  { title: "split begin@line at ',b'", params: { method: 'split', split_ref: 'begin@line', delimiters: ',b' }, values: VALUES, result: ['a', '', '', '', 'c'] },
  { title: "split begin@none at [',']", params: { method: 'split', split_ref: 'begin@none', delimiters: [','] }, values: VALUES, result: [''] },
  { title: "split begin@zero at [',']", params: { method: 'split', split_ref: 'begin@zero', delimiters: [','] }, values: VALUES, result: [''] },
  {
    title: "split begin@list at [',']",
    params: { method: 'split', split_ref: 'begin@list', delimiters: [','] },
    values: VALUES,
    error: "The input variable is not a string: <class 'list'>",
  },
  {
    title: "split begin@dict at [',']",
    params: { method: 'split', split_ref: 'begin@dict', delimiters: [','] },
    values: VALUES,
    error: "The input variable is not a string: <class 'dict'>",
  },
  {
    title: "split begin@line at ['']",
    params: { method: 'split', split_ref: 'begin@line', delimiters: [''] },
    values: VALUES,
    result: ['', 'a', ',', 'b', ',', ',', 'c', ''],
  },
  { title: "split begin@line at ['.*']", params: { method: 'split', split_ref: 'begin@line', delimiters: ['.*'] }, values: VALUES, result: ['a,b,,c'] },
  {
    title: 'split with no delimiters',
    params: { method: 'split', split_ref: 'begin@line', delimiters: [] },
    values: VALUES,
    error: 'delimiters does not support empty value.',
  },
  {
    title: "merge 'Hello {begin@name}!' ([','])",
    params: { method: 'merge', script: 'Hello {begin@name}!', delimiters: [','] },
    values: VALUES,
    result: 'Hello Ada!',
  },
  {
    title: "merge 'Items: {begin@items}' ([' | '])",
    params: { method: 'merge', script: 'Items: {begin@items}', delimiters: [' | '] },
    values: VALUES,
    result: 'Items: a | 1 | None | True',
  },
  {
    title: "merge 'Obj: {begin@obj}' ([','])",
    params: { method: 'merge', script: 'Obj: {begin@obj}', delimiters: [','] },
    values: VALUES,
    result: 'Obj: {"n": 1, "s": "é"}',
  },
  {
    title: "merge '{{begin@name}} and {begin@name}' ([','])",
    params: { method: 'merge', script: '{{begin@name}} and {begin@name}', delimiters: [','] },
    values: VALUES,
    result: '{Ada} and Ada',
  },
  {
    title: "merge 'begin_name is {begin@name}' ([','])",
    params: { method: 'merge', script: 'begin_name is {begin@name}', delimiters: [','] },
    values: VALUES,
    result: 'Ada is Ada',
  },
  {
    title: "merge '{{ begin_name | upper }}!' ([','])",
    params: { method: 'merge', script: '{{ begin_name | upper }}!', delimiters: [','] },
    values: VALUES,
    result: '!',
  },
  {
    title: "merge '{% for x in begin_list %}[{{ x }}]{% endfor %}' ([''])",
    params: { method: 'merge', script: '{% for x in begin_list %}[{{ x }}]{% endfor %}', delimiters: [''] },
    values: VALUES,
    result: '',
  },
  {
    title: "merge '{% if begin_n == \"3\" %}three{% else %}other{% endif %}' ([','])",
    params: { method: 'merge', script: '{% if begin_n == "3" %}three{% else %}other{% endif %}', delimiters: [','] },
    values: VALUES,
    result: 'other',
  },
  {
    title: "merge '{{ begin_name | nofilter }} {begin@name}' ([','])",
    params: { method: 'merge', script: '{{ begin_name | nofilter }} {begin@name}', delimiters: [','] },
    values: VALUES,
    error: "No filter named 'nofilter'.",
  },
  { title: "merge '{{ begin_list }}' (['-'])", params: { method: 'merge', script: '{{ begin_list }}', delimiters: ['-'] }, values: VALUES, result: '' },
  {
    title: "merge '{% for c in begin_name %}{{ loop.index }}{{ c }}{% endfor %}' ([','])",
    params: { method: 'merge', script: '{% for c in begin_name %}{{ loop.index }}{{ c }}{% endfor %}', delimiters: [','] },
    values: VALUES,
    result: '',
  },
  {
    title: 'merge \'{{ begin_name ~ "!" if begin_n else "none" }}\' ([\',\'])',
    params: { method: 'merge', script: '{{ begin_name ~ "!" if begin_n else "none" }}', delimiters: [','] },
    values: VALUES,
    result: 'none',
  },
  {
    title: "merge '{{ missing }}|{{ begin_name.upper() }}' ([','])",
    params: { method: 'merge', script: '{{ missing }}|{{ begin_name.upper() }}', delimiters: [','] },
    values: VALUES,
    result: '{{ missing }}|{{ begin_name.upper() }}',
  },
  {
    title: "merge 'no refs {{ 1 + 2 }}' ([','])",
    params: { method: 'merge', script: 'no refs {{ 1 + 2 }}', delimiters: [','] },
    values: VALUES,
    result: 'no refs 3',
  },
  {
    title: "merge '{{ begin_name.__class__ }}' ([','])",
    params: { method: 'merge', script: '{{ begin_name.__class__ }}', delimiters: [','] },
    values: VALUES,
    result: '',
  },
  {
    title: "merge '{{ begin_name[0] }}{{ begin_name[-1] }}' ([','])",
    params: { method: 'merge', script: '{{ begin_name[0] }}{{ begin_name[-1] }}', delimiters: [','] },
    values: VALUES,
    result: '{{ begin_name[0] }}{{ begin_name[-1] }}',
  },
  {
    title: 'merge \'{{ "a,b" .split(",") | join("+") }}\' ([\',\'])',
    params: { method: 'merge', script: '{{ "a,b" .split(",") | join("+") }}', delimiters: [','] },
    values: VALUES,
    result: 'a+b',
  },
  {
    title: "merge '{%- if true -%}  x  {%- endif -%} y' ([','])",
    params: { method: 'merge', script: '{%- if true -%}  x  {%- endif -%} y', delimiters: [','] },
    values: VALUES,
    result: 'xy',
  },
  {
    title: "merge '{begin@name} {{ begin_name | upper }}' ([','])",
    params: { method: 'merge', script: '{begin@name} {{ begin_name | upper }}', delimiters: [','] },
    values: WITH_QUERY,
    result: 'Ada ADA',
  },
  {
    title: "merge '{begin@list}: {% for x in begin_list %}[{{ x }}]{% endfor %}' ([','])",
    params: { method: 'merge', script: '{begin@list}: {% for x in begin_list %}[{{ x }}]{% endfor %}', delimiters: [','] },
    values: WITH_QUERY,
    result: 'x,y: [x][,][y]',
  },
  { title: "merge '{begin@list}' ([''])", params: { method: 'merge', script: '{begin@list}', delimiters: [''] }, values: WITH_QUERY, result: '["x", "y"]' },
  {
    title: "merge '{begin@n}{% if begin_n == \"3\" %} is three{% else %} is other{% endif %}' ([','])",
    params: { method: 'merge', script: '{begin@n}{% if begin_n == "3" %} is three{% else %} is other{% endif %}', delimiters: [','] },
    values: WITH_QUERY,
    result: '3 is three',
  },
  {
    title: "merge '{begin@name}: {{ begin_name[0] }}{{ begin_name[-1] }} {{ begin_name | length }}' ([','])",
    params: { method: 'merge', script: '{begin@name}: {{ begin_name[0] }}{{ begin_name[-1] }} {{ begin_name | length }}', delimiters: [','] },
    values: WITH_QUERY,
    result: 'Ada: Aa 3',
  },
  {
    title: "merge '{begin@name} {{ begin_name.upper() }} {{ begin_name.nope() }}' ([','])",
    params: { method: 'merge', script: '{begin@name} {{ begin_name.upper() }} {{ begin_name.nope() }}', delimiters: [','] },
    values: WITH_QUERY,
    result: 'Ada {{ Ada.upper() }} {{ Ada.nope() }}',
  },
  {
    title: "merge '{begin@obj} {{ begin_obj.n }}' ([','])",
    params: { method: 'merge', script: '{begin@obj} {{ begin_obj.n }}', delimiters: [','] },
    values: WITH_QUERY,
    result: '{"n": 1, "s": "é"} ',
  },
  {
    title: "merge '{begin@name} {% for i in begin_name %}{{ loop.index }}{{ i }}{% if not loop.last %}-{% endif %}{% endfor %}' ([','])",
    params: {
      method: 'merge',
      script: '{begin@name} {% for i in begin_name %}{{ loop.index }}{{ i }}{% if not loop.last %}-{% endif %}{% endfor %}',
      delimiters: [','],
    },
    values: WITH_QUERY,
    result: 'Ada 1A-2d-3a',
  },
  {
    title: 'merge \'{begin@name} {{ begin_name ~ "!" if begin_n else "none" }}\' ([\',\'])',
    params: { method: 'merge', script: '{begin@name} {{ begin_name ~ "!" if begin_n else "none" }}', delimiters: [','] },
    values: WITH_QUERY,
    result: 'Ada none',
  },
  {
    title: "merge '{begin@name} {% if %}' ([','])",
    params: { method: 'merge', script: '{begin@name} {% if %}', delimiters: [','] },
    values: WITH_QUERY,
    fails: true,
  },
  {
    title: "merge '{begin@name} {{ begin_name is odd }}' ([','])",
    params: { method: 'merge', script: '{begin@name} {{ begin_name is odd }}', delimiters: [','] },
    values: WITH_QUERY,
    result: 'Ada {{ Ada is odd }}',
  },
  {
    title: "merge '{begin@none}|{begin@zero}|{begin@dict}' ([','])",
    params: { method: 'merge', script: '{begin@none}|{begin@zero}|{begin@dict}', delimiters: [','] },
    values: WITH_QUERY,
    result: '|0|{"k": 1}',
  },
  {
    title: "merge '{sys.query} {begin@name}' ([','])",
    params: { method: 'merge', script: '{sys.query} {begin@name}', delimiters: [','] },
    values: WITH_QUERY,
    result: 'hey Ada',
  },
  {
    title: "merge '{begin@name} {{ begin_name.__class__ }}|{{ begin_name | default(\"x\") }}' ([','])",
    params: { method: 'merge', script: '{begin@name} {{ begin_name.__class__ }}|{{ begin_name | default("x") }}', delimiters: [','] },
    values: WITH_QUERY,
    result: 'Ada |Ada',
  },
  {
    title: 'merge \'{begin@n} {{ begin_n | int + 1 }} {{ "%s" }} {{ [1,2] | join(",") }}\' ([\',\'])',
    params: { method: 'merge', script: '{begin@n} {{ begin_n | int + 1 }} {{ "%s" }} {{ [1,2] | join(",") }}', delimiters: [','] },
    values: WITH_QUERY,
    result: '3 4 %s 1,2',
  },
  {
    title: 'unknown method',
    params: { method: 'reverse', split_ref: 'begin@line' },
    values: VALUES,
    error: "Support method reverse is not supported, it should be in ['split', 'merge']",
  },
];

describe('StringTransform matches RAGFlow on the same inputs', () => {
  it.each(rows)('$title', (row) => {
    const out = runInline(StringTransform as unknown as AnyComponentDef, row.params, structuredClone(row.values));
    if (row.fails) expect(out).toHaveProperty('error');
    else if (row.error !== undefined) expect(out).toEqual({ error: row.error });
    else expect(out).toEqual({ outputs: { result: row.result } });
  });
});
