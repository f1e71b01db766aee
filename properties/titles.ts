/**
 * The titles of the API properties, in one place: the property files use them for their checks
 * (and the replay command), test/properties/properties-catch-faults.run.test.ts selects them with -t.
 */
export const titles = {
  cdrWindowStatus: 'GET /cdrs answers every generated from/till/limit with the status and error code the spec requires',
  cdrRows:
    'GET /cdrs answers every accepted window with count = rows, rows inside the window and no more than the limit',
  hookStateMachine: 'POST /hooks and DELETE /hooks/{id} in any order follow the subscription state table',
  hookAutoDisable:
    'Failing deliveries disable a subscription after exactly 10 consecutive failures, after which DELETE answers 404',
  callsNegative: 'POST /calls refuses every schema-invalid body with 400 invalid_input',
  hooksNegative: 'POST /hooks refuses every schema-invalid body with 400 invalid_input',
  cdrsNegative:
    'GET /cdrs refuses every unparseable from or till with 400 invalid_timestamp, whatever else the query holds',
  hooksPositive:
    'POST /hooks accepts every schema-valid body (any of the five events, any https URL up to 512 characters) with 200',
} as const;
