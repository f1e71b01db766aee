/** The requirement each event kind's payload schema stands for (shared by the webhook suites). */
import type { EventType } from '../contract/openapi.ts';
import type { RequirementId } from '../requirements/catalogue.ts';

export const payloadRequirement: Record<EventType, RequirementId> = {
  'call.ended': 'EVENT-CALL-ENDED-PAYLOAD',
  'call.transferred': 'EVENT-CALL-TRANSFERRED-PAYLOAD',
  'disposition.set': 'EVENT-DISPOSITION-SET-PAYLOAD',
  'dnc.added': 'EVENT-DNC-ADDED-PAYLOAD',
  'lead.completed': 'EVENT-LEAD-COMPLETED-PAYLOAD',
};
