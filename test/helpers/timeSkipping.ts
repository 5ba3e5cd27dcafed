/**
 * A time-skipping Temporal test server, for tests whose subject is a long wait (a pause that
 * expires after days): while the test awaits a workflow's result, the server jumps its clock to
 * the next timer instead of sleeping through it.
 *
 * The SDK's own download of that server cannot work offline, so this takes the same server from
 * Maven Central (io.temporal:temporal-test-server, a plain jar with a classpath of its
 * dependencies, not a fat jar): a one-dependency pom under .tools/temporal-test-server/<version>,
 * `mvn dependency:build-classpath` once (cached in ~/.m2), and a launcher script that runs
 * `io.temporal.testserver.TestServer <port>`, the command line the SDK's `existing-path`
 * executable expects of the native test server.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTES } from '../../src/core/searchAttributes';

const TEST_SERVER_VERSION = '1.38.0';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const INSTALL_HINT = 'install Java 11+ and Maven (apt-get install openjdk-17-jdk-headless maven)';
/** The operator service's IndexedValueType numbers, by the names SEARCH_ATTRIBUTES uses. */
const INDEXED_VALUE_TYPE: Record<string, number> = { Text: 1, Keyword: 2, Int: 3, Double: 4, Bool: 5, Datetime: 6, KeywordList: 7 };

function works(command: string, args: string[]): boolean {
  const r = spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
  return !r.error && r.status === 0;
}

/** Why no time-skipping server can be started here (checked without starting anything), or null. */
export function timeSkippingUnavailable(): string | null {
  if (!works('java', ['-version'])) return `Java not found (${INSTALL_HINT})`;
  if (!works('mvn', ['-v'])) return `Maven (mvn) not found (${INSTALL_HINT})`;
  return null;
}

/** The launcher script, built on first use: Maven resolves the server's jars into ~/.m2. */
function testServerLauncher(): string {
  const dir = path.join(root, '.tools/temporal-test-server', TEST_SERVER_VERSION);
  const launcher = path.join(dir, 'test-server');
  const classpathFile = path.join(dir, 'classpath.txt');
  // The classpath file is found next to the script, not by an absolute path: a .tools folder
  // shared between checkouts (or moved) keeps a working launcher.
  const script = `#!/bin/sh\nexec java -cp "$(cat "$(dirname "$0")/classpath.txt")" io.temporal.testserver.TestServer "$@"\n`;
  const resolved = existsSync(classpathFile) && readFileSync(classpathFile, 'utf8').split(path.delimiter).every(existsSync);
  if (resolved) {
    if (!existsSync(launcher) || readFileSync(launcher, 'utf8') !== script) writeFileSync(launcher, script);
    chmodSync(launcher, 0o755);
    return launcher;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.agent-canvas</groupId><artifactId>temporal-test-server-classpath</artifactId><version>0</version>
  <dependencies>
    <dependency><groupId>io.temporal</groupId><artifactId>temporal-test-server</artifactId><version>${TEST_SERVER_VERSION}</version></dependency>
  </dependencies>
</project>
`,
  );
  const built = spawnSync('mvn', ['-B', '-q', 'dependency:build-classpath', `-Dmdep.outputFile=${classpathFile}`], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 10 * 60_000,
  });
  if (built.status !== 0)
    throw new Error(`mvn could not resolve io.temporal:temporal-test-server:${TEST_SERVER_VERSION}:\n${(built.stdout + built.stderr).slice(-4000)}`);
  writeFileSync(launcher, script);
  chmodSync(launcher, 0o755);
  return launcher;
}

/** A time-skipping environment with the product's search attributes registered, as the dev server has them. */
export async function startTimeSkippingServer(): Promise<TestWorkflowEnvironment> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerLauncher() } } });
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, INDEXED_VALUE_TYPE[type]])),
  });
  return env;
}
