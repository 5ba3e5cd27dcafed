/**
 * Model client benchmark (`npm run bench -- model`): one streamed chat call through the `openai`
 * client, as every model node makes it, over the platform's `fetch` and over `pooledFetch` (the
 * one the model clients use, src/io/net/pooledFetch.ts), against the scripted model in process.
 * Rounds alternate between the two so a busy machine slows both alike; wall time and process CPU
 * per call are medians over the rounds.
 */
import OpenAI from 'openai';
import { pooledFetch } from '../src/io/net';
import { startScriptedLlm } from '../test/helpers/scriptedLlm';
import { median, printTable, runBench } from './common';

const CALLS = Number(process.env.BENCH_MODEL_CALLS ?? 300);
const ROUNDS = Number(process.env.BENCH_MODEL_ROUNDS ?? 6);

async function main(): Promise<void> {
  const llm = await startScriptedLlm();
  llm.when(() => ({ content: 'a short streamed answer of a few words' }));
  const clients = {
    'platform fetch': new OpenAI({ baseURL: llm.url, apiKey: 'k', maxRetries: 0 }),
    pooledFetch: new OpenAI({ baseURL: llm.url, apiKey: 'k', maxRetries: 0, fetch: pooledFetch }),
  };
  const call = async (client: OpenAI) => {
    // As llmChat calls: streamed, usage asked for, with a cancellation signal.
    const stream = await client.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } },
      { signal: new AbortController().signal },
    );
    for await (const piece of stream) void piece;
  };
  const figures = new Map<string, { wall: number[]; cpu: number[] }>(Object.keys(clients).map((k) => [k, { wall: [], cpu: [] }]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, client] of Object.entries(clients)) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < CALLS; i++) await call(client);
      const wall = (performance.now() - t0) / CALLS;
      const cpu = process.cpuUsage(cpu0);
      if (round === 0) continue; // warm-up
      figures.get(name)!.wall.push(wall);
      figures.get(name)!.cpu.push((cpu.user + cpu.system) / 1000 / CALLS);
    }
  }
  await llm.stop();
  const of = (name: string) => ({ wall: median(figures.get(name)!.wall), cpu: median(figures.get(name)!.cpu) });
  const platform = of('platform fetch');
  const pooled = of('pooledFetch');
  printTable(`Model client: one streamed chat call (${CALLS} calls × ${ROUNDS} rounds, scripted model in process)`, [
    ['platform fetch: wall, ms per call', platform.wall.toFixed(2)],
    ['platform fetch: process CPU, ms per call', platform.cpu.toFixed(2)],
    ['pooledFetch: wall, ms per call', pooled.wall.toFixed(2)],
    ['pooledFetch: process CPU, ms per call', pooled.cpu.toFixed(2)],
    ['pooledFetch / platform fetch: wall, CPU', `${(pooled.wall / platform.wall).toFixed(2)}×, ${(pooled.cpu / platform.cpu).toFixed(2)}×`],
  ]);
}

runBench(main);
