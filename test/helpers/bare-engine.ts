import type { CommandContext, Engine, EngineCommand } from '../../src/engine/engine.ts';
import type { EventBus } from '../../src/execution/journal/event-bus.ts';

export type PlanOutline = { name: string; codons: ReadonlyArray<{ id: string; name: string }> };

/**
 * For protocol tests and the fan-out benchmark: an engine that runs no agents. It announces the
 * plan, idles, and answers every codon command with the reason it cannot act.
 */
export class BareEngine implements Engine {
  readonly rollingBack = false;
  readonly #bus: EventBus;
  readonly #plan: PlanOutline;

  constructor(options: { bus: EventBus; plan: PlanOutline }) {
    this.#bus = options.bus;
    this.#plan = options.plan;
  }

  async start(): Promise<void> {
    await this.#bus.publish('server.idle', {
      reason: 'startup',
      message: `plan "${this.#plan.name}" loaded with ${this.#plan.codons.length} codons`,
    });
  }

  handle(command: EngineCommand, context: CommandContext): void {
    switch (command.type) {
      case 'codon.start':
        context.fail('UNKNOWN_CODON', `no codon "${command.data.codonId}" in plan "${this.#plan.name}"`);
        return;
      case 'codon.next':
        context.fail('NO_NEXT_CODON', `plan "${this.#plan.name}" has no codon left to start`);
        return;
      case 'codon.skip':
      case 'codon.forceStop':
      case 'codon.message':
        context.fail('NO_CODON_RUNNING', `no codon is running; nothing to ${command.type.slice(6)}`);
        return;
      case 'codon.redo':
        context.fail('NOTHING_TO_REDO', 'no codon has run yet; start one with codon.start or codon.next');
        return;
      case 'checkpoint.list':
        context.reply('checkpoint.list', {
          runId: command.data.runId ?? this.#bus.runId,
          checkpoints: [],
          currentBranch: '',
        });
        return;
      case 'checkpoint.diff':
        context.fail('CHECKPOINT_NOT_FOUND', `no checkpoint matches ${command.data.from}`);
        return;
      case 'rollback.toCheckpoint':
        context.fail('CHECKPOINT_NOT_FOUND', `no checkpoint matches ${command.data.checkpointSha}`);
        return;
      case 'rollback.toCodon':
        context.fail('UNKNOWN_CODON', `no codon "${command.data.codonId}" in plan "${this.#plan.name}"`);
        return;
      case 'rollback.toLastSuccess':
        context.fail(
          'NO_SUCCESSFUL_CODON',
          'no codon has completed successfully yet; nothing to roll back to',
        );
        return;
    }
  }

  async stop(): Promise<void> {}
}
