import { defineConfig } from 'vitest/config';

// One vitest project per concern, so `npm test` runs them all and each can be run alone
// with `vitest run --project <name>`.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'properties',
          include: ['properties/**/*.property.ts'],
        },
      },
    ],
  },
});
