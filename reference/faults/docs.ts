/** Faults of {base_url}/openapi.json and /docs (../routes/docs.ts). ../faults.ts describes each. */
import { faultsAt } from '../points.ts';
import { docs } from '../routes/docs.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export default faultsAt(docs, {
  'openapi-removed-operation': {
    document: (baseUrl, next) => {
      const doc = next(baseUrl);
      const item = doc.paths['/hooks/{id}'];
      if (item) delete item.delete;
      if (item && Object.keys(item).filter((k) => METHODS.includes(k)).length === 0) delete doc.paths['/hooks/{id}'];
      return doc;
    },
  },
  'docs-missing': { served: () => false },
});
