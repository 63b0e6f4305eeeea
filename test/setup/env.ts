/**
 * Sets environment variables for one test file (they are read when the app is
 * created) and returns the function that puts back what was there: Jest runs
 * every file in one process (--runInBand), so a file must not leave them set.
 */
export function setEnv(vars: Record<string, string>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
