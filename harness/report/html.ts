/**
 * report.html: one self-contained file that works offline: the requirements grouped by the
 * spec's sections with counts per section, a status filter, each check's details (its seed and
 * replay command for a property), each failure with the redacted HTTP exchange that proved it
 * and a curl command that replays it, the observations, what was not verifiable and why, the
 * trend against earlier runs, and the load probes' charts.
 *
 * The status filter is CSS only (radio buttons and :has()): the page's Content-Security-Policy
 * allows no script at all, so a hostile target's text can never run, and the filter still works.
 * The layout uses the page's width and stacks each requirement's cells on a phone.
 *
 * Rendered with preact + htm: every string from the target (bodies, headers, messages) is
 * escaped by the renderer, so a hostile target cannot script the report; control and bidi
 * characters are made visible first (readable.ts). SVG charts are built from numbers by
 * charts.ts and inserted as trusted markup.
 */
import { partialText } from './partial.ts';
import htm from 'htm';
import { h, type VNode } from 'preact';
import { renderToStaticMarkup } from 'preact-render-to-string';
import { lines, stackedBars } from './charts.ts';
import type { ControlGap } from './control-gaps.ts';
import type { LoadProbeSummary, RequirementStatus, RequirementVerdict, RunReport } from './model.ts';
import { failedRequirementsText, isSeedNote, type CheckResult } from './results.ts';
import { describeWaiver, waiverModeText } from './waivers.ts';
import { clip, readableData } from './readable.ts';

type Html = (strings: TemplateStringsArray, ...values: unknown[]) => VNode;
// htm's types describe CommonJS; under Node's ESM loader the import is the htm function itself.
// htm drops the whitespace around a line break at either end of a text, so the markup breaks lines between tags
// (never inside a text) without changing the page.
const html = (htm as unknown as { bind(pragma: typeof h): Html }).bind(h);

const statusText: Record<RequirementStatus, string> = {
  passed: 'passed',
  failed: 'failed',
  waived: 'waived',
  observed: 'observed',
  not_verifiable: 'not verifiable',
  not_run: 'not run (interrupted)',
  not_checked: 'not checked here',
};

/** The statuses a reader can filter the requirements by, in the order the filter shows them. */
const FILTERS: ReadonlyArray<{ status: RequirementStatus; label: string }> = [
  { status: 'failed', label: 'failed' },
  { status: 'waived', label: 'waived' },
  { status: 'not_verifiable', label: 'not verifiable' },
  { status: 'observed', label: 'observed' },
  { status: 'passed', label: 'passed' },
];

const filterCss = FILTERS.map(
  ({ status }) =>
    `body:has(#filter-${status}:checked) .req-row:not([data-status="${status}"]){display:none}` +
    `body:has(#filter-${status}:checked) .section:not(:has(.req-row[data-status="${status}"])){display:none}`,
).join('\n');

const css = [
  '',
  'body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}',
  'main{margin:0;padding:20px clamp(10px,2.5vw,36px)}',
  '.filters{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:8px 0 12px;position:sticky;top:0;' +
    'background:#f6f7f9;padding:6px 0;z-index:2}',
  '.filters input{position:absolute;opacity:0;pointer-events:none}' +
    '.filters label{border:1px solid #c7cdd6;border-radius:14px;padding:3px 12px;background:#fff;cursor:pointer;' +
    'white-space:nowrap}',
  '.filters input:checked+label{background:#1d2330;color:#fff;border-color:#1d2330}' +
    '.filters input:focus-visible+label{outline:2px solid #1a73e8}',
  '.section{background:#fff;border:1px solid #dde1e7;border-radius:8px;margin:10px 0}' +
    '.section>summary{padding:8px 12px;cursor:pointer;display:flex;flex-wrap:wrap;gap:4px 12px;align-items:baseline}',
  '.section>summary h3{display:inline;font-size:16px;margin:0}.counts{display:flex;flex-wrap:wrap;gap:4px}',
  '.req-table td:first-child{white-space:nowrap}' +
    '.req-table .sub{display:block;color:#5b6475;font-size:12px;white-space:normal}',
  '.check-list{margin:4px 0 0;padding-left:18px}.check-list li{margin:4px 0}' +
    '.replay{display:block;background:#f3f5f8;border:1px solid #e3e6eb;padding:4px 6px;margin-top:2px;font-size:12px;' +
    'white-space:pre-wrap;word-break:break-all}',
  '@media (max-width:720px){.req-table thead{display:none}' +
    '.req-table,.req-table tbody,.req-table tr,.req-table td{display:block;width:auto}',
  '.req-table tr{border-top:1px solid #dde1e7;padding:6px 0}.req-table td{border:none;padding:2px 10px}' +
    '.req-table td:first-child{white-space:normal}',
  '.req-table td[data-label]::before{content:attr(data-label) ": ";color:#5b6475;font-size:12px}' +
    '.req-table td:empty{display:none}.cards .card{min-width:0;flex:1 1 40%}}',
  'h1{font-size:22px;margin:0 0 4px}' +
    'h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #dde1e7;padding-bottom:4px}',
  '.meta{color:#5b6475}.cards{display:flex;gap:12px;flex-wrap:wrap;margin:16px 0}',
  '.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:10px 14px;min-width:120px}',
  '.card b{display:block;font-size:22px}.verdict-passed{color:#137333}.verdict-failed{color:#b3261e}',
  'table{border-collapse:collapse;width:100%;background:#fff}' +
    'th,td{border:1px solid #dde1e7;padding:5px 8px;text-align:left;vertical-align:top}',
  'th{background:#eef1f5;position:sticky;top:0}' +
    '.badge{border-radius:10px;padding:1px 8px;font-size:12px;white-space:nowrap}',
  '.passed{background:#e6f4ea;color:#137333}.failed{background:#fce8e6;color:#b3261e}' +
    '.observed{background:#e8f0fe;color:#1a56c4}',
  '.not_verifiable{background:#fef7e0;color:#8a5a00}.waived{background:#fff0d6;color:#8a4b00}' +
    '.failure.waived-check{border-left-color:#e37400}.not_run{background:#f3e8fd;color:#6a1b9a}' +
    '.not_checked{background:#eee;color:#555}',
  'pre{white-space:pre-wrap;word-break:break-word;background:#fbfbfc;border:1px solid #e3e6eb;padding:8px;' +
    'font-size:12px;max-height:420px;overflow:auto}',
  '.failure{background:#fff;border-left:4px solid #b3261e;padding:8px 12px;margin:10px 0}' +
    '.callout{background:#fce8e6;padding:8px 12px;border-radius:6px}',
  '.chart{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:8px;margin:8px 0;overflow-x:auto}',
  'li,td{overflow-wrap:anywhere}',
  filterCss,
  '',
].join('\n');

function Svg({ markup }: { markup: string }): VNode {
  return html`<div class="chart" dangerouslySetInnerHTML=${{ __html: markup }}></div>`;
}

/** The spec's top-level section a requirement comes from ("Endpoints › GET /cdrs" → "Endpoints"). */
function topSection(section: string): string {
  return section.split(' › ')[0]!;
}

function Counts({ rows }: { rows: readonly RequirementVerdict[] }): VNode {
  const order: RequirementStatus[] = [
    'failed',
    'waived',
    'not_run',
    'not_verifiable',
    'observed',
    'passed',
    'not_checked',
  ];
  return html`<span class="counts">${order.flatMap((status) => {
    const n = rows.filter((r) => r.status === status).length;
    return n === 0 ? [] : [html`<span class=${`badge ${status}`}>${n} ${statusText[status]}</span>`];
  })}</span>`;
}

/** One check in a requirement's details: its status, failure or skip reason, seed and replay command. */
function CheckItem({ check, requirement }: { check: CheckResult; requirement: string }): VNode {
  const seeds = check.observations.filter(
    (o) => isSeedNote(o.text) && (o.requirement === requirement || check.requirements[0] === o.requirement),
  );
  const why =
    check.status === 'failed' || check.status === 'waived' ? (check.failure ?? '').split('\n')[0] : check.skipReason;
  const badge = check.status === 'skipped' ? 'not_verifiable' : check.status;
  return html`<li data-check-status=${check.status}>
    <span class=${`badge ${badge}`}>${check.status}</span> ${check.name} <span class="meta">${check.file}</span>
    ${why === undefined || why === '' ? null : html`<div class="meta">${clip(why, 300)}</div>`}
    ${seeds.map((o) => html`<code class="replay">${o.text}</code>`)}</li>`;
}

function Row({ r, checks }: { r: RequirementVerdict; checks: readonly CheckResult[] }): VNode {
  const mine = checks.filter((c) => c.requirements.includes(r.id));
  const notes = [...r.observations.filter((o) => !isSeedNote(o)), ...r.notVerifiableBecause];
  const sub = r.section.split(' › ').slice(1).join(' › ');
  return html`<tr class="req-row" data-requirement=${r.id} data-status=${r.status}>
    <td><code>${r.id}</code>${sub === '' ? null : html`<span class="sub">${sub}</span>`}</td>
    <td data-label="Level">${r.level}</td>
    <td>${r.text}</td>
    <td data-label="Status"><span class=${`badge ${r.status}`}>${partialText(statusText[r.status], r.probes)}</span>${
      r.probes === undefined
        ? null
        : html` <small>every probe last sent and passed: ${r.lastFullPass ?? 'not in the trend'}</small>`
    }</td>
    <td data-label="Checks">${
      r.source !== undefined
        ? r.source
        : mine.length === 0
          ? '–'
          : html`<details><summary>${mine.length} check${mine.length === 1 ? '' : 's'}</summary>
      <ul class="check-list">${mine.map((c) => html`<${CheckItem} check=${c} requirement=${r.id} />`)}</ul></details>`
    }</td>
    <td data-label="Notes">${notes.join('; ')}</td></tr>`;
}

/** The requirements grouped by the spec's sections (catalogue order), each with its counts. */
function Matrix({ rows, checks }: { rows: readonly RequirementVerdict[]; checks: readonly CheckResult[] }): VNode {
  const sections = [...new Set(rows.map((r) => topSection(r.section)))];
  return html`<div id="requirement-matrix" role="region" aria-label="Requirement matrix">${sections.map((section) => {
    const inSection = rows.filter((r) => topSection(r.section) === section);
    const count = `${inSection.length} requirement${inSection.length === 1 ? '' : 's'}`;
    return html`<details class="section" open data-section=${section}>
      <summary><h3>${section}</h3> <span class="meta">${count}</span> <${Counts} rows=${inSection} /></summary>
      <table class="req-table"><thead><tr>
        <th>Requirement</th><th>Level</th><th>Statement</th><th>Status</th><th>Checks</th><th>Notes</th>
      </tr></thead>
      <tbody>${inSection.map((r) => html`<${Row} r=${r} checks=${checks} />`)}</tbody></table></details>`;
  })}</div>`;
}

function Filters({ rows }: { rows: readonly RequirementVerdict[] }): VNode {
  return html`<nav class="filters" aria-label="Show requirements by status">
    <span class="meta">Show:</span>
    <input type="radio" name="status-filter" id="filter-all" checked />
    <label for="filter-all">all (${rows.length})</label>
    ${FILTERS.map(
      ({ status, label }) => html`<input type="radio" name="status-filter" id=${`filter-${status}`} />
        <label for=${`filter-${status}`}>${label} (${rows.filter((r) => r.status === status).length})</label>`,
    )}
  </nav>`;
}

function Failures({ report }: { report: RunReport }): VNode | null {
  const failed = report.checks.filter((c) => c.status === 'failed');
  if (failed.length === 0) return null;
  return html`<section id="failures"><h2>Failures (${failed.length})</h2>${failed.map(
    (c) => html`<div class="failure">
    <strong>${c.name}</strong><div class="meta">${failedRequirementsText(c)} · ${c.file}</div>
    <pre>${c.failure ?? ''}</pre>
    ${
      c.exchanges.length > 0
        ? html`<details>
      <summary>HTTP exchanges behind this failure (${c.exchanges.length}${lastOf(c)}, secrets redacted)</summary>
      ${c.exchanges.map((e) => exchangeRecord(e))}</details>`
        : null
    }
  </div>`,
  )}</section>`;
}

/** ", the last of N" when the earlier exchanges of a failed check were left out. */
function lastOf(c: CheckResult): string {
  return c.exchangesOmitted === undefined ? '' : `, the last of ${c.exchanges.length + c.exchangesOmitted}`;
}

/** One exchange behind a failure, and the curl command that replays it. */
function exchangeRecord(e: Record<string, unknown>): VNode {
  return html`<pre>${formatExchangeRecord(e)}</pre>${
    typeof e.curl === 'string'
      ? html`<div class="meta">Reproduce (secrets are the variables that hold them):</div>
        <pre class="curl">${e.curl}</pre>`
      : null
  }`;
}

function Waivers({ report }: { report: RunReport }): VNode | null {
  const waived = report.checks.filter((c) => c.waivers !== undefined && c.waivers.length > 0);
  const { expired, unused } = report.waivers;
  if (waived.length === 0 && expired.length === 0 && unused.length === 0) return null;
  return html`<section id="waivers"><h2>Waivers</h2>
    ${
      expired.length > 0
        ? html`<p class="callout"><strong>Expired waivers (they fail the run):</strong></p>
          <ul>${expired.map((w) => html`<li data-waiver="expired">${describeWaiver(w)}</li>`)}</ul>`
        : null
    }
    ${
      unused.length > 0
        ? html`<p><strong>Unused waivers</strong> (their check ran and did not fail: remove them):</p>
          <ul>${unused.map((w) => html`<li data-waiver="unused">${describeWaiver(w)}</li>`)}</ul>`
        : null
    }
    ${waived.map(
      (c) => html`<div class="failure waived-check" data-check-status=${c.status}>
      <strong>${c.status === 'waived' ? 'Waived' : 'Partly waived'}: ${c.name}</strong>
      <div class="meta">${(c.waivedRequirements ?? []).join(', ')} · ${c.file}</div>
      <ul>${(c.waivers ?? []).map((w) => html`<li>${describeWaiver(w)}</li>`)}</ul>
      <pre>${c.failure ?? ''}</pre></div>`,
    )}</section>`;
}

function formatExchangeRecord(exchange: Record<string, unknown>): string {
  const headers = (value: unknown) =>
    Object.entries((value ?? {}) as Record<string, string>)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
  const status =
    exchange.status === undefined
      ? `no response: ${String(exchange.transportError)}`
      : `${String(exchange.status)} (${String(exchange.durationMs)} ms)`;
  const truncated = exchange.truncated === undefined ? '' : `\n\n(${String(exchange.truncated)})`;
  const body = exchange.requestBody === undefined ? '' : `\n\n${String(exchange.requestBody)}`;
  return (
    `${String(exchange.method)} ${String(exchange.url)}\n${headers(exchange.requestHeaders)}${body}\n\n` +
    `→ ${status}\n${headers(exchange.responseHeaders)}\n\n${clip(String(exchange.rawBody ?? ''), 4000)}${truncated}`
  );
}

/** Requirements passed on part of their probes, and when every probe of each was last sent and passed. */
function partialTrend(report: RunReport): VNode | null {
  const partial = report.requirements.filter((r) => r.probes !== undefined);
  if (partial.length === 0) return null;
  return html`<p>
    Passed on part of their probes this run (the budget left the others to later seeds); every probe last sent
    and passed: ${partial.map((r) => `${r.id} ${r.lastFullPass ?? 'not in the trend'}`).join('; ')}
  </p>`;
}

function Trend({ report }: { report: RunReport }): VNode {
  const runs = report.history;
  const chart = stackedBars(
    'Requirements per run',
    [
      { label: 'passed', color: '#34a853', values: runs.map((r) => r.passed) },
      { label: 'failed', color: '#d93025', values: runs.map((r) => r.failed) },
      { label: 'not verifiable', color: '#f9ab00', values: runs.map((r) => r.notVerifiable) },
    ],
    runs.map((r) => r.startedAt),
  );
  return html`<section id="trend"><h2>Trend over the last ${runs.length} run${runs.length === 1 ? '' : 's'}</h2>
    ${
      report.regressions.length > 0
        ? html`<p class="callout">
            <strong>Regressions since the previous run:</strong> ${report.regressions.join(', ')}
          </p>`
        : html`<p>No regression since the previous run.</p>`
    }
    ${report.fixed.length > 0 ? html`<p>Fixed since the previous run: ${report.fixed.join(', ')}</p>` : null}
    ${partialTrend(report)}
    <${Svg} markup=${chart} /></section>`;
}

interface RateChart {
  seconds: number[];
  accepted: number[];
  refused: number[];
}
interface RetryChart {
  deliveries: Array<{ label: string; attemptsMs: number[]; expectedMs: number[] }>;
}

function LoadProbe({ probe }: { probe: LoadProbeSummary }): VNode {
  const chart = probe.chart as Partial<RateChart & RetryChart> | undefined;
  let svg: string | undefined;
  if (chart?.accepted !== undefined && chart.refused !== undefined) {
    svg = stackedBars(
      'Accepted and refused requests per second',
      [
        { label: 'accepted', color: '#34a853', values: chart.accepted },
        { label: 'refused', color: '#d93025', values: chart.refused },
      ],
      (chart.seconds ?? chart.accepted.map((_, i) => i)).map(String),
    );
  } else if (chart?.deliveries !== undefined) {
    const palette = ['#1a73e8', '#e37400', '#188038', '#a142f4'];
    svg = lines(
      'Attempt times of retried deliveries against the expected backoff',
      chart.deliveries.flatMap((d, i) => [
        {
          label: `${d.label} seen`,
          color: palette[i % palette.length]!,
          points: d.attemptsMs.map((ms, n) => [n + 1, ms / 1000] as const),
        },
        {
          label: `${d.label} expected`,
          color: palette[i % palette.length]!,
          dashed: true,
          points: d.expectedMs.map((ms, n) => [n + 1, ms / 1000] as const),
        },
      ]),
    );
  }
  const status = probe.notFinished !== undefined ? 'not_run' : probe.passed ? 'passed' : 'failed';
  const label = probe.notFinished !== undefined ? probe.notFinished.reason : status;
  return html`<div><h3>${probe.probe}: <span class=${`badge ${status}`}>${label}</span></h3>
    ${
      probe.finishedAt === undefined
        ? null
        : html`<div class="meta">k6 run finished ${probe.finishedAt} (its own run, read from reports/latest)</div>`
    }
    ${probe.failedThresholds.length > 0 ? html`<p>Failed thresholds: ${probe.failedThresholds.join(', ')}</p>` : null}
    ${svg === undefined ? null : html`<${Svg} markup=${svg} />`}
    ${
      probe.observations.length > 0 ? html`<ul>${probe.observations.map((o) => html`<li>${o}</li>`)}</ul>` : null
    }</div>`;
}

/** A check the interrupted run never reached. */
function notRunItem(c: CheckResult): VNode {
  return html`<li data-status="not_run">${c.name} <span class="meta">${c.requirements.join(', ')}</span></li>`;
}

/** A control capability the target lacks, and the requirements it would make verifiable. */
function controlGapItem(gap: ControlGap): VNode {
  return html`<li><code>${gap.capability}</code>: ${gap.unlocks.join(', ') || '–'}</li>`;
}

/** What the with-load section says after `--with-load`. */
const WITH_LOAD_NOTE =
  ' (the k6 probes, against the same target) to decide these ' +
  '(what a probe does not observe within its budget stays not verifiable):';

function Page({ report }: { report: RunReport }): VNode {
  const { checks, requirements } = report.counts;
  const failed = requirements.failed > 0 || checks.failed > 0 || report.waivers.expired.length > 0;
  const verdict = report.dryRun ? 'dry run' : failed ? 'failed' : 'passed';
  // Seeds and replay commands are in each check's details, not among the observations.
  const observed = report.requirements
    .map((r) => ({ ...r, observations: r.observations.filter((o) => !isSeedNote(o)) }))
    .filter((r) => r.observations.length > 0);
  const notVerifiable = report.requirements.filter((r) => r.status === 'not_verifiable');
  const notRun = report.checks.filter((c) => c.status === 'not_run');
  const verdictClass = `verdict-${failed ? 'failed' : 'passed'}`;
  const target =
    report.target.kind === 'embedded' ? 'the embedded reference server' : html`<code>${report.target.baseUrl}</code>`;
  const started = `started ${report.startedAt} · ${(report.durationMs / 1000).toFixed(1)} s`;
  const checkCount = checks.passed + checks.failed + checks.waived + checks.skipped + checks.notRun;
  return html`<main>
    <h1>Outbound Calling API v1 conformance: <span class=${verdictClass}>${verdict}</span></h1>
    <div class="meta">Target ${target} · ${started} · seed ${report.seed} · suite ${report.suiteVersion}</div>
    ${report.interrupted ? html`<p class="callout">The run was interrupted: results are partial.</p>` : null}
    <div class="meta" id="waiver-mode">Waivers: ${waiverModeText(report.waivers)}</div>
    <div class="cards">
      <div class="card"><b>${requirements.passed}</b>MUST passed</div>
      <div class="card"><b>${requirements.failed}</b>MUST failed</div>
      ${requirements.waived > 0 ? html`<div class="card"><b>${requirements.waived}</b>MUST waived</div>` : null}
      <div class="card"><b>${requirements.notVerifiable}</b>not verifiable</div>
      <div class="card"><b>${requirements.observed}</b>observed</div>
      <div class="card"><b>${checks.passed}/${checkCount}</b>checks passed</div>
      ${checks.notRun > 0 ? html`<div class="card"><b>${checks.notRun}</b>checks not run (interrupted)</div>` : null}
      <div class="card"><b>${report.requests.sent}</b>requests sent · ${report.requests.rateLimited} × 429</div>
    </div>
    <${Trend} report=${report} />
    <${Failures} report=${report} />
    <${Waivers} report=${report} />
    ${
      report.unhandledErrors.length > 0
        ? html`<section><h2>Errors outside checks</h2>
          ${report.unhandledErrors.map((e) => html`<pre>${e}</pre>`)}</section>`
        : null
    }
    <section id="matrix"><h2>Requirements by section of the spec (${requirements.total})</h2>
      <${Filters} rows=${report.requirements} />
      <${Matrix} rows=${report.requirements} checks=${report.checks} /></section>
    <section id="observations"><h2>Observations (${observed.length}), never failures</h2>
      ${
        observed.length === 0
          ? html`<p>None.</p>`
          : html`<ul>${observed.map((r) => html`<li><code>${r.id}</code>: ${r.observations.join('; ')}</li>`)}</ul>`
      }</section>
    <section id="not-verifiable"><h2>Not verifiable with this configuration (${notVerifiable.length})</h2>
      ${
        notVerifiable.length === 0
          ? html`<p>Everything the suites check was verifiable.</p>`
          : html`<ul>
              ${notVerifiable.map((r) => html`<li><code>${r.id}</code>: ${r.notVerifiableBecause.join('; ')}</li>`)}
            </ul>`
      }</section>
    ${
      notRun.length > 0
        ? html`<section id="not-run"><h2>Not run: the run was interrupted (${notRun.length})</h2>
      <ul>${notRun.map((c) => notRunItem(c))}</ul></section>`
        : null
    }
    ${
      report.loadWouldDecide.length > 0
        ? html`<section id="with-load"><h2>Left to the load probes (${report.loadWouldDecide.length})</h2>
      <p>Run with <code>--with-load</code>${WITH_LOAD_NOTE}</p>
      <ul>${report.loadWouldDecide.map((id) => html`<li><code>${id}</code></li>`)}</ul></section>`
        : null
    }
    ${
      report.controlGaps.length > 0
        ? html`<section id="control-gaps">
      <h2>Test-control states and inspections the target does not offer (${report.controlGaps.length})</h2>
      <p>See <code>control-openapi.json</code>; each would make these requirements verifiable.</p>
      <ul>${report.controlGaps.map((gap) => controlGapItem(gap))}</ul></section>`
        : null
    }
    ${
      report.load.length > 0
        ? html`<section id="load"><h2>Load probes (k6)</h2>
          ${report.load.map((p) => html`<${LoadProbe} probe=${p} />`)}</section>`
        : null
    }
  </main>`;
}

export function renderHtml(run: RunReport): string {
  const report = readableData(run);
  const body = renderToStaticMarkup(html`<${Page} report=${report} />`);
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta http-equiv="Content-Security-Policy" ` +
    `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">` +
    `<title>Conformance report ${report.startedAt}</title><style>${css}</style></head><body>${body}</body></html>\n`
  );
}
