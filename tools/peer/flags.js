'use strict';
// --name=value flags over defaults; an unknown flag or a bare word is refused.
function parseFlags(argv, defaults) {
  const flags = {...defaults};
  for (const arg of argv) {
    const match = /^--([a-z_]+)=(.*)$/.exec(arg);
    if (!match || !(match[1] in defaults)) {
      const known = Object.keys(defaults).map((name) => `--${name}`).join(' ');
      throw new Error(`unknown argument ${arg} (flags: ${known})`);
    }
    flags[match[1]] = match[2];
  }
  return flags;
}

module.exports = {parseFlags};
