/** What a promise rejected with (null when it resolved), so a test can assert on the failure itself. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => null,
    (e: unknown) => e,
  );
}
