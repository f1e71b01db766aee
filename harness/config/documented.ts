/** The variables .env.example documents: the suite's whole configuration surface. Pure. */
export function documentedVariables(envExample: string): string[] {
  return [...new Set([...envExample.matchAll(/^#?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!))].sort();
}
