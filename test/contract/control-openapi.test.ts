import { describe, expect, it } from 'vitest';
import { controlInspections, controlOpenapi, controlStates } from '../../contract/control.ts';

describe('control-openapi.json (the test-control protocol)', () => {
  it('names exactly the states and inspections the suite knows (the TS lists mirror the document)', () => {
    expect(controlOpenapi.components.schemas.StateName.enum).toEqual([...controlStates]);
    expect(controlOpenapi.components.schemas.InspectionName.enum).toEqual([...controlInspections]);
  });

  it('documents what every state returns and every inspection reads', () => {
    for (const name of controlStates) expect(controlOpenapi.components.schemas.StateName.description).toContain(`\`${name}\``);
    for (const name of controlInspections) expect(controlOpenapi.components.schemas.InspectionName.description).toContain(`\`${name}\``);
  });
});
