import type { Argument, Command, Option } from 'commander';
import { anchor, code, page, table } from './markdown.ts';

/**
 * docs/reference/cli.md from the commander program: each command, depth first in the order they are
 * registered, with its usage, description, arguments and options. `cwd` is the directory the
 * program was built in: a default taken from it (`process.cwd()`) is written as the current directory,
 * so the page is the same on every machine.
 */
export function cliReference(program: Command, cwd: string): string {
  const root = program.name();
  return page('CLI reference', [
    `Every \`${root}\` command, with its arguments and options. Each also takes \`-h, --help\`; ` +
      `\`${root} help [command]\` prints the same.`,
    ...commands(program).map((command) => commandSection(command, cwd)),
  ]);
}

/** The command and its descendants, depth first. */
function commands(command: Command): Command[] {
  return [command, ...subcommandsOf(command).flatMap(commands)];
}

/**
 * What `--help` lists, less the help command and option commander adds to every command (the page
 * says so once).
 */
function subcommandsOf(command: Command): Command[] {
  return command
    .createHelp()
    .visibleCommands(command)
    .filter((c) => command.commands.includes(c));
}

function optionsOf(command: Command): Option[] {
  return command
    .createHelp()
    .visibleOptions(command)
    .filter((o) => command.options.includes(o));
}

function path(command: Command): string {
  return command.parent ? `${path(command.parent)} ${command.name()}` : command.name();
}

function commandSection(command: Command, cwd: string): string {
  const options = optionsOf(command);
  const subcommands = subcommandsOf(command);
  return [
    `## ${path(command)}`,
    `\`${path(command)} ${command.usage()}\``,
    command.description(),
    command.registeredArguments.length === 0
      ? ''
      : table(['argument', 'description'], command.registeredArguments.map(argumentRow)),
    options.length === 0
      ? ''
      : table(
          ['option', 'default', 'description'],
          options.map((o) => optionRow(o, cwd)),
        ),
    subcommands.length === 0
      ? ''
      : `Subcommands: ${subcommands.map((c) => `[${code(c.name())}](#${anchor(path(c))})`).join(', ')}.`,
  ]
    .filter((block) => block !== '')
    .join('\n\n');
}

function argumentRow(argument: Argument): string[] {
  const name = argument.variadic ? `${argument.name()}...` : argument.name();
  const term = argument.required ? `<${name}>` : `[${name}]`;
  return [code(term), sentence(argument.description, [choices(argument.argChoices)])];
}

function optionRow(option: Option, cwd: string): string[] {
  const notes = [option.mandatory ? 'required' : '', choices(option.argChoices)];
  return [code(option.flags), defaultOf(option, cwd), sentence(option.description, notes)];
}

/** The default when `--help` shows one (commander's rule: none for a flag without a boolean default). */
function defaultOf(option: Option, cwd: string): string {
  const shown =
    option.required || option.optional || (option.isBoolean() && typeof option.defaultValue === 'boolean');
  if (option.defaultValue === undefined || !shown) return '';
  if (option.defaultValueDescription) return option.defaultValueDescription;
  if (option.defaultValue === cwd) return 'the current directory';
  return code(JSON.stringify(option.defaultValue));
}

function choices(values: readonly string[] | undefined): string {
  return values === undefined ? '' : `one of ${values.map(code).join(', ')}`;
}

/** The description, then its notes in parentheses. */
function sentence(description: string, notes: readonly string[]): string {
  const given = notes.filter((n) => n !== '');
  return given.length === 0 ? description : `${description} (${given.join('; ')})`;
}
