import { oneLine } from '../../model/format.ts';
import type { BatchSummary, JobResult } from '../summary-schema.ts';
import { xmlAttribute, xmlText } from './escape.ts';
import { failureText, jobReason, jobSeconds } from './job-text.ts';

/**
 * `junit.xml`: the batch as one JUnit test suite, for CI (GitHub Actions, GitLab, Jenkins). Each job
 * is a test case named by its id: a job that failed is a failure (its codon's failure the message,
 * the whole reason in the body), one that failed for want of infrastructure an error, one that never
 * ran (or still runs) skipped. Pure.
 */
export function junitXml(summary: BatchSummary): string {
  const count = (states: readonly JobResult['state'][]) =>
    summary.jobs.filter((j) => states.includes(j.state)).length;
  const name = xmlAttribute(summary.name);
  const time = seconds(summary.jobs.reduce((sum, j) => sum + jobSeconds(j), 0));
  const totals = `tests="${summary.jobs.length}" failures="${count(['failed'])}" errors="${count(['infra-failed'])}" skipped="${count(['pending', 'running', 'skipped'])}" time="${time}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${name}" ${totals}>`,
    `  <testsuite name="${name}" ${totals} timestamp="${xmlAttribute(summary.startedAt)}">`,
    ...summary.jobs.map((job) => testCase(name, job)),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** At most this many characters in a message attribute (the element's body has the whole text). */
const MESSAGE_MAX = 1_000;

function testCase(suite: string, job: JobResult): string {
  const open = `    <testcase classname="${suite}" name="${xmlAttribute(job.id)}" time="${seconds(jobSeconds(job))}"`;
  const outcome = outcomeOf(job);
  const out = `      <system-out>${xmlText(details(job))}</system-out>`;
  return outcome
    ? `${open}>\n      ${outcome}\n${out}\n    </testcase>`
    : `${open}>\n${out}\n    </testcase>`;
}

function outcomeOf(job: JobResult): string | undefined {
  const reason = jobReason(job);
  const message = (text: string) => xmlAttribute(oneLine(text, MESSAGE_MAX));
  switch (job.state) {
    case 'passed':
      return undefined;
    case 'failed': {
      const failure = failureText(job);
      // The runner's reason is often the codon's failure itself: said once.
      const body = [
        ...new Set([job.reason, job.metrics?.failure ? failure : undefined].filter(Boolean)),
      ].join('\n\n');
      const type = job.metrics?.failure?.reason ?? 'failed';
      return `<failure message="${message(failure ?? (reason || 'the plan failed'))}" type="${xmlAttribute(type)}">${xmlText(body)}</failure>`;
    }
    case 'infra-failed':
      return `<error message="${message(reason || 'its run did not finish')}" type="infrastructure">${xmlText(reason)}</error>`;
    case 'skipped':
      return `<skipped message="${message(reason || 'skipped')}"/>`;
    case 'pending':
      return `<skipped message="${message(reason || 'never started')}"/>`;
    case 'running':
      return `<skipped message="${message(reason || 'still running when this report was written')}"/>`;
  }
}

/** What the job did, for a person reading the CI log: codons, cost, tokens, where its execution is. */
function details(job: JobResult): string {
  const m = job.metrics;
  const lines = [
    `state: ${job.state}${job.exitCode === undefined ? '' : ` (exit ${job.exitCode})`}`,
    ...(Object.keys(job.axes).length > 0
      ? [
          `axes: ${Object.entries(job.axes)
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')}`,
        ]
      : []),
    ...(m
      ? [
          `codons: ${m.codonsDone}/${m.codonsTotal ?? '?'}`,
          `cost: $${m.costUsd.toFixed(4)}${m.costEstimated ? ' (partly estimated)' : ''}`,
          `tokens: ${m.inputTokens} in, ${m.outputTokens} out`,
        ]
      : []),
    `execution: ${job.execution}`,
  ];
  return lines.join('\n');
}

const seconds = (s: number) => s.toFixed(3);
