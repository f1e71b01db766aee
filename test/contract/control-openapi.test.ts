import { describe, expect, it } from 'vitest';
import {
  controlRules,
  inspectionParams,
  inspectionResults,
  schemaProblems,
  stateParams,
  stateValues,
} from '../../control-check/schemas.ts';
import { controlInspections, controlOpenapi, controlStates } from '../../contract/control.ts';

type Examples = Record<string, { value: unknown }>;
const examplesOf = (path: '/states' | '/inspections', where: 'request' | 'response'): Examples => {
  const operation = controlOpenapi.paths[path].post;
  const content = where === 'request' ? operation.requestBody.content : operation.responses[200].content;
  return content['application/json'].examples as Examples;
};

describe('control-openapi.json (the test-control protocol)', () => {
  it('names exactly the states and inspections the suite knows (the TS lists mirror the document)', () => {
    expect(controlOpenapi.components.schemas.StateName.enum).toEqual([...controlStates]);
    expect(controlOpenapi.components.schemas.InspectionName.enum).toEqual([...controlInspections]);
  });

  it('documents what every state returns and every inspection reads', () => {
    for (const name of controlStates)
      expect(controlOpenapi.components.schemas.StateName.description).toContain(`\`${name}\``);
    for (const name of controlInspections)
      expect(controlOpenapi.components.schemas.InspectionName.description).toContain(`\`${name}\``);
  });

  it("names the schema of every state's params and values, with an example of each that conforms", () => {
    expect(Object.keys(stateParams)).toEqual([...controlStates]);
    expect(Object.keys(stateValues)).toEqual([...controlStates]);
    const requests = examplesOf('/states', 'request');
    const answers = examplesOf('/states', 'response');
    for (const name of controlStates) {
      const request = requests[`${name}-setup`]?.value as { state: string; params: unknown } | undefined;
      expect(request?.state, name).toBe(name);
      expect(schemaProblems('StateChange', request), name).toEqual([]);
      expect(schemaProblems(stateParams[name]!, request?.params), name).toEqual([]);
      expect(schemaProblems(stateValues[name]!, answers[`${name}-values`]?.value), name).toEqual([]);
    }
  });

  it("names the schema of every inspection's params and result, with an example of each that conforms", () => {
    expect(Object.keys(inspectionParams)).toEqual([...controlInspections]);
    expect(Object.keys(inspectionResults)).toEqual([...controlInspections]);
    const requests = examplesOf('/inspections', 'request');
    const answers = examplesOf('/inspections', 'response');
    for (const name of controlInspections) {
      const request = requests[name]?.value as { inspection: string; params: unknown } | undefined;
      expect(request?.inspection, name).toBe(name);
      expect(schemaProblems(inspectionParams[name]!, request?.params), name).toEqual([]);
      expect(schemaProblems(inspectionResults[name]!, answers[name]?.value), name).toEqual([]);
    }
  });

  it('states the rules occ control-check names, each once', () => {
    const ids = controlRules.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of controlRules) expect(rule.id).toMatch(/^CTL-[A-Z-]+$/);
  });

  it('rejects what its schemas rule out: a setup answer without its documented member', () => {
    expect(schemaProblems('TokenAgentValues', { token: 't' })).toEqual(['the body lacks agentId']);
    const capabilities = { protocol: 'occ-control/1', states: 'a,b', inspections: [] };
    expect(schemaProblems('Capabilities', capabilities)).toEqual(['states must be array']);
  });
});
