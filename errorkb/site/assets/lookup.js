/* errorkb lookup: which entry does a pasted error belong to?
 *
 * A line-for-line port of errorkb/message.py (MessageTemplate: parse, match, search) and
 * errorkb/lookup.py (candidates, ranking). tests/site/test_lookup_js.py runs both on the same
 * inputs, so the page and `errorkb lookup` always agree. No DOM here: errorkb.js wires it up.
 */
(function (root, factory) {
  const api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.errorkbLookup = api;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  class TemplateSyntaxError extends Error {}

  const OPENERS = { "(": ")", "[": "]", "{": "}" };

  /* The `}` closing the placeholder opened at `start`, brackets nested (message.py:_closing_brace). */
  function closingBrace(source, start) {
    const stack = ["}"];
    let quote = null;
    for (let i = start + 1; i < source.length; i++) {
      const char = source[i];
      if (quote) {
        if (char === quote) quote = null;
      } else if (char === "'" || char === '"') {
        quote = char;
      } else if (char in OPENERS) {
        stack.push(OPENERS[char]);
      } else if (char === ")" || char === "]" || char === "}") {
        if (char !== stack[stack.length - 1]) break;
        stack.pop();
        if (!stack.length) return i;
      }
    }
    throw new TemplateSyntaxError(`placeholder opened at character ${start + 1} is never closed`);
  }

  /* Template text → [{literal}|{placeholder}] (MessageTemplate.parse). */
  function parse(source) {
    const parts = [];
    let literal = "";
    let i = 0;
    while (i < source.length) {
      const char = source[i];
      if (source.startsWith("{{", i) || source.startsWith("}}", i)) {
        literal += char;
        i += 2;
      } else if (char === "{") {
        const end = closingBrace(source, i);
        if (literal) { parts.push({ literal }); literal = ""; }
        const expression = source.slice(i + 1, end).trim();
        if (!expression) throw new TemplateSyntaxError(`empty placeholder {} at character ${i + 1}`);
        parts.push({ placeholder: expression });
        i = end + 1;
      } else if (char === "}") {
        throw new TemplateSyntaxError(`unmatched '}' at character ${i + 1}`);
      } else {
        literal += char;
        i += 1;
      }
    }
    if (literal) parts.push({ literal });
    return parts;
  }

  const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&");

  /* The compiled template: lazy groups, a repeated expression must repeat its text. */
  class MessageTemplate {
    constructor(source) {
      this.source = source;
      this.parts = parse(source);
      const groups = new Map();
      let pattern = "";
      for (const part of this.parts) {
        if ("literal" in part) pattern += escapeRegex(part.literal);
        else if (groups.has(part.placeholder)) pattern += `\\k<${groups.get(part.placeholder)}>`;
        else {
          const name = `p${groups.size}`;
          groups.set(part.placeholder, name);
          pattern += `(?<${name}>.*?)`;
        }
      }
      this.names = new Map([...groups].map(([expression, name]) => [name, expression]));
      this.full = new RegExp(`^(?:${pattern})$`, "su");
      this.anywhere = new RegExp(pattern, "su");
      const literals = this.parts.filter((p) => "literal" in p).map((p) => p.literal);
      // Every fixed piece must occur in a text the template matches: a cheap test, longest first.
      this.pieces = [...new Set(literals)].sort((a, b) => b.length - a.length);
      this.fixed = literals.reduce((n, text) => n + [...text].length, 0);
    }
    values(found) {
      if (!found) return null;
      const values = {};
      for (const [name, expression] of this.names) values[expression] = found.groups[name];
      return values;
    }
    match(message) { return this.values(this.full.exec(message)); }
    search(text) { return this.values(this.anywhere.exec(text)); }
    get literalText() { return this.parts.filter((p) => "literal" in p).map((p) => p.literal).join(" "); }
  }

  const EXCEPTION_LINE = /^([ \t]*(?:E[ \t]+)?)([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*): ([^\n]*)$/;
  const STOP_LINE = /^\s*$|^Traceback \(most recent call last\):|^During handling of the above exception|^The above exception was the direct cause/;

  const normalize = (text) => text.replace(/\r\n/g, "\n").replace(/\r/g, "\n").replace(/^\s+|\s+$/gu, "");

  /* Messages a pasted text may hold, most likely first (lookup.py:candidates). */
  function candidates(text) {
    const lines = text.split("\n");
    const found = [];
    for (let index = lines.length - 1; index >= 0; index--) {
      const line = EXCEPTION_LINE.exec(lines[index]);
      if (!line) continue;
      const [, prefix, name, first] = line;
      found.push({ message: first, exception: name });
      const more = [];
      const prefixed = prefix.trim() !== "";
      for (let following of lines.slice(index + 1)) {
        if (prefixed && !following.startsWith(prefix)) break;
        if (prefixed) following = following.slice(prefix.length);
        if (STOP_LINE.test(following)) break;
        more.push(following);
      }
      if (more.length) found.push({ message: [first, ...more].join("\n"), exception: name });
    }
    found.push({ message: text, exception: null });
    return found;
  }

  const lastName = (name) => name.slice(name.lastIndexOf(".") + 1);
  const sameException = (seen, documented) => lastName(seen) === lastName(documented);
  const rstrip = (text) => text.replace(/\s+$/u, "");

  const score = (m) => [m.exact ? 1 : 0, m.exception !== null ? 1 : 0, m.fixed];
  function compare(a, b) {
    const sa = score(a), sb = score(b);
    for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) return sb[i] - sa[i];
    return a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0;
  }

  /* Every entry of the JSON index compiled once; `find` answers one paste. */
  class Lookup {
    constructor(entries) {
      // Pastes are stripped, so templates are too: a source message may end in a space.
      this.items = entries.map((entry) => ({ entry, template: new MessageTemplate(entry.message.replace(/^\s+|\s+$/gu, "")) }));
    }
    find(pasted) {
      const text = normalize(pasted);
      if (!text) return [];
      const options = candidates(text);
      const matches = [];
      for (const { entry, template } of this.items) {
        if (!template.pieces.every((piece) => text.includes(piece))) continue;
        let best = null;
        for (const option of options) {
          if (option.exception !== null && !sameException(option.exception, entry.exception)) continue;
          const values = template.match(rstrip(option.message));
          if (values !== null) {
            const found = { entry, values, exception: option.exception, exact: true, fixed: template.fixed };
            if (best === null || compare(found, best) < 0) best = found;
          }
        }
        if (best === null) {
          const values = template.search(text);
          if (values !== null) best = { entry, values, exception: null, exact: false, fixed: template.fixed };
        }
        if (best !== null) matches.push(best);
      }
      return matches.sort(compare);
    }
  }

  return { MessageTemplate, TemplateSyntaxError, Lookup, candidates, normalize, parse };
});
