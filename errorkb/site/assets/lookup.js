/* errorkb lookup: which entry does a pasted error belong to?
 *
 * A line-for-line port of errorkb/core/message.py (MessageTemplate: parse, match, search, the
 * fixed-text measure) and errorkb/site/lookup.py (normalisation, candidates, ranking, releases);
 * the rules are written out in lookup.py's docstring. tests/site/test_lookup_js.py runs both on
 * the same inputs and compares their answers, their counted work and their regular expressions,
 * so the page and `errorkb lookup` always agree. No DOM here: errorkb.js wires it up.
 *
 * Where JavaScript and Python differ, the code says the same thing explicitly: whitespace is
 * ASCII (String.prototype.trim and /\s/ know more), line ends are normalised before any regex
 * sees them, and sizes are counted in code points (a string's length counts UTF-16 units).
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
    throw new TemplateSyntaxError(
      `placeholder opened at character ${start + 1} is never closed; write '{{' for a literal brace`);
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
        throw new TemplateSyntaxError(`unmatched '}' at character ${i + 1}; write '}}' for a literal brace`);
      } else {
        literal += char;
        i += 1;
      }
    }
    if (literal) parts.push({ literal });
    return parts;
  }

  /* Characters a scan may examine, added up (message.py:Meter). */
  class Meter {
    constructor() { this.work = 0; }
  }

  /* text.find(piece, start, end), counting what the scan may have examined (message.py:_find). */
  function find(text, piece, start, end, meter) {
    let found = text.indexOf(piece, start);
    if (found >= 0 && found + piece.length > end) found = -1;
    meter.work += found < 0 ? end - start : found + piece.length - start;
    return found;
  }

  /* A template matched piece by piece: each fixed piece found in order, no backtracking. */
  class MessageTemplate {
    constructor(source) {
      this.source = source;
      this.parts = parse(source);
      this.pieces = [];
      let current = "";
      for (const part of this.parts) {
        if ("literal" in part) current += part.literal;
        else { this.pieces.push(current); current = ""; }
      }
      this.pieces.push(current);
      this.slots = this.parts.filter((p) => "placeholder" in p).map((p) => p.placeholder);
    }
    match(message, meter) { return this.fit(message, true, meter || new Meter()); }
    search(text, meter) { return this.fit(text, false, meter || new Meter()); }
    fit(text, whole, meter) {
      const pieces = this.pieces;
      const first = pieces[0], last = pieces[pieces.length - 1];
      let end, position;
      if (whole && pieces.length === 1) {
        meter.work += first.length;
        return text === first ? {} : null;
      }
      if (whole) {
        meter.work += first.length + last.length;
        end = text.length - last.length;
        if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return null;
        position = first.length;
      } else {
        const at = find(text, first, 0, text.length, meter);
        if (at < 0) return null;
        if (pieces.length === 1) return {};
        end = text.length;
        position = at + first.length;
      }
      const values = [];
      for (const piece of pieces.slice(1, -1)) {
        const found = find(text, piece, position, end, meter);
        if (found < 0) return null;
        values.push(text.slice(position, found));
        position = found + piece.length;
      }
      if (whole) {
        values.push(text.slice(position, end));
      } else {
        const found = find(text, last, position, end, meter);
        if (found < 0) return null;
        values.push(text.slice(position, found));
      }
      return this.named(values);
    }
    /* Values by expression; null when a repeated expression stood for two texts. */
    named(values) {
      const named = {};
      for (let i = 0; i < this.slots.length; i++) {
        if (!(this.slots[i] in named)) named[this.slots[i]] = values[i];
        else if (named[this.slots[i]] !== values[i]) return null;
      }
      return named;
    }
    get literalText() { return this.parts.filter((p) => "literal" in p).map((p) => p.literal).join(" "); }
  }

  /* -- how much fixed text a template has (message.py:fixed_text, is_degenerate) -------------- */

  const MIN_FIXED = 8;
  const MIN_PIECE = 6;
  const FILLER = "\x00";
  const GENERIC_WORDINGS = [
    "'{a}' object has no attribute '{b}'",
    "type object '{a}' has no attribute '{b}'",
    "module '{a}' has no attribute '{b}'",
    "name '{a}' is not defined",
    "cannot import name '{a}' from '{b}'",
    "No module named '{a}'",
    "{a}() got an unexpected keyword argument '{b}'",
    "{a}() takes {b} positional arguments but {c} were given",
    "{a}() missing {b} required positional argument: '{c}'",
    "'{a}' object is not subscriptable",
    "'{a}' object is not callable",
    "'{a}' object is not iterable",
    "object of type '{a}' has no len()",
    "unsupported operand type(s) for {a}: '{b}' and '{c}'",
    "too many values to unpack (expected {a})",
    "not enough values to unpack (expected {a}, got {b})",
  ];
  const ALNUM = /[\p{L}\p{N}]/u;

  function fixedText(template) {
    const counts = template.pieces.map((piece) => [...piece].filter((char) => ALNUM.test(char)).length);
    return { total: counts.reduce((a, b) => a + b, 0), longest: Math.max(...counts) };
  }

  function isDegenerate(template, generic = GENERIC_WORDINGS) {
    if (typeof template === "string") template = new MessageTemplate(template);
    const measure = fixedText(template);
    if (measure.total < MIN_FIXED) {
      return `its fixed text has ${measure.total} letters or digits (at least ${MIN_FIXED} needed): ` +
        "it would match almost any message";
    }
    if (!template.slots.length) return null;
    if (measure.longest < MIN_PIECE) {
      return `its longest fixed piece has ${measure.longest} letters or digits (at least ${MIN_PIECE} needed ` +
        "when there are placeholders): it would match almost any message";
    }
    const filled = template.pieces.join(FILLER);
    for (const wording of generic) {
      const values = new MessageTemplate(wording).match(filled);
      if (values !== null && Object.values(values).every((v) => v && !v.split(FILLER).join(""))) {
        return `it fixes nothing beyond the wording every such error has (${wording}): ` +
          "its placeholders hold whatever identifies the error";
      }
    }
    return null;
  }

  /* -- rules 1–3: size, normalisation, candidates (lookup.py) ---------------------------------- */

  const CAP = 1 << 16;
  const CHAIN = 64;
  const WHITESPACE = " \t\n\v\f\r";

  // The same sources as lookup.py's patterns (the parity test compares them).
  const ANSI = new RegExp(String.raw`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|[@-Z\\-_])`, "g");
  const TIMESTAMP = String.raw`\[?[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?` +
    String.raw`(?:Z|[+-][0-9]{2}:?[0-9]{2})?\]?(?:[ \t,]+(?:-[ \t]+)?(?:[A-Za-z0-9_.<>-]+[ \t]+[-|:][ \t]+)?` +
    String.raw`\[?(?:CRITICAL|FATAL|ERROR|WARNING|WARN|INFO|DEBUG|TRACE)\]?:?)?[ \t]*(?:[-|:][ \t]*)?`;
  const PREFIX = new RegExp(String.raw`(?<![^\n])(?:\[(?:rank|default)[0-9]+\]:[ \t]?|E(?: {2,}|\t)` +
    String.raw`|[A-Za-z0-9_][A-Za-z0-9_.-]*[ \t]+\|[ \t]?|` + TIMESTAMP + String.raw`)+`, "g");
  const SUFFIX = new RegExp(String.raw`\. Did you (?:mean:(?: '[^'\n]*'\??)?(?: Or did you forget to import '[^'\n]*'\??)?` +
    String.raw`|forget to import '[^'\n]*'\??)[ \t]*(?![^\n])`, "g");
  const EXCEPTION_LINE = new RegExp(String.raw`(?<![^\n])[ \t]*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*): ([^\n]*)`, "g");
  const STOP_LINE = new RegExp(String.raw`(?<![^\n])(?:[ \t]*(?![^\n])|Traceback \(most recent call last\):` +
    String.raw`|During handling of the above exception|The above exception was the direct cause)`);
  const FRAME = new RegExp(String.raw`File \"([^\"\n]*)\", line ([0-9]+)`, "g");
  const PLAIN_RELEASE = new RegExp(String.raw`^[0-9]+(?:\.[0-9]+)*$`);
  const CLAUSE = new RegExp(String.raw`^(~=|==|!=|<=|>=|<|>)[ \t]*([0-9]+(?:\.[0-9]+)*)(\.\*)?$`);

  function rstrip(text) {
    let end = text.length;
    while (end > 0 && WHITESPACE.includes(text[end - 1])) end--;
    return text.slice(0, end);
  }
  function strip(text) {
    let start = 0;
    while (start < text.length && WHITESPACE.includes(text[start])) start++;
    return rstrip(text.slice(start));
  }

  const isHigh = (code) => code >= 0xd800 && code <= 0xdbff;
  const isLow = (code) => code >= 0xdc00 && code <= 0xdfff;
  const SURROGATE = /[\ud800-\udfff]/;
  /* Code points in `text` (Python's len); one native scan when it has no astral character. */
  function points(text) {
    if (!SURROGATE.test(text)) return text.length;
    let count = text.length;
    for (let i = 1; i < text.length; i++) if (isLow(text.charCodeAt(i)) && isHigh(text.charCodeAt(i - 1))) count--;
    return count;
  }

  /* The paste's last `cap` characters (code points), from the first line that starts inside them. */
  function keepTail(text, cap) {
    if (text.length <= cap) return text;
    let start = text.length, count = 0;
    while (start > 0 && count < cap) {
      start -= start >= 2 && isLow(text.charCodeAt(start - 1)) && isHigh(text.charCodeAt(start - 2)) ? 2 : 1;
      count++;
    }
    if (start === 0) return text;
    const tail = text.slice(start);
    const newline = tail.indexOf("\n");
    return newline >= 0 ? tail.slice(newline + 1) : tail;
  }

  /* Rule 2: what terminals and tools add, taken away. */
  /* Typographic quotes as Python prints them; pastes and wordings alike (lookup.py:plain_quotes). */
  const plainQuotes = (text) => text.replaceAll("\u2018", "'").replaceAll("\u2019", "'")
    .replaceAll("\u201c", '"').replaceAll("\u201d", '"');

  function normalize(text, meter) {
    meter = meter || new Meter();
    meter.work += 14 * text.length;  // the fourteen passes below each read the text once
    text = text.replaceAll("\ufeff", "").replaceAll("\u00a0", " ");
    text = plainQuotes(text);
    text = text.replaceAll("\r\n", "\n").replaceAll("\r", "\n").replaceAll("\u2028", "\n").replaceAll("\u2029", "\n");
    text = text.replace(ANSI, "");
    text = text.replace(PREFIX, "");
    text = text.replace(SUFFIX, "");
    return strip(text);
  }

  /* Rule 3: messages a normalised paste may hold, most likely first. */
  function candidates(text, meter) {
    meter = meter || new Meter();
    meter.work += text.length;
    const lines = [...text.matchAll(EXCEPTION_LINE)].slice(-CHAIN);
    const found = [];
    for (let chain = 0; chain < lines.length; chain++) {
      const line = lines[lines.length - 1 - chain];
      const name = line[1], first = line[2];
      found.push({ message: rstrip(first), exception: name, chain });
      const after = chain ? lines[lines.length - chain].index - 1 : text.length;
      const more = continuation(text, line.index + line[0].length + 1, after, meter);
      if (more) found.push({ message: rstrip(first + "\n" + more), exception: name, chain });
    }
    found.push({ message: text, exception: null, chain: CHAIN });
    return found;
  }

  /* The lines in text[start:end] before the first blank line or traceback marker. */
  function continuation(text, start, end, meter) {
    if (start >= end) return "";
    const region = text.slice(start, end);
    meter.work += region.length;
    const stop = STOP_LINE.exec(region);
    return stop === null ? region : region.slice(0, Math.max(stop.index - 1, 0));
  }

  const lastName = (name) => name.slice(name.lastIndexOf(".") + 1);
  const sameException = (seen, documented) => lastName(seen) === lastName(documented);

  /* -- rules 4–5: matching and ranking ------------------------------------------------------- */

  const text_ = (value) => (value === null || value === undefined ? null : String(value));

  /* One entry of api/errors/index.json as the lookup reads it (lookup.py:Known.from_index). */
  function known(item) {
    const wording = (w) => ({ message: text_(w.message) || "", exception: text_(w.exception) || item.exception,
      releases: text_(w.releases), device: text_(w.device), note: text_(w.note) });
    let wordings = (item.wordings || []).map(wording);
    if (!wordings.length) wordings = [wording({ message: item.message, exception: item.exception })];
    const lines = item.lines || {};
    return {
      entry: item, id: item.id, exception: item.exception, message: item.message, wordings,
      releases: { raises: text_(item.raises_in), lastGood: text_(item.last_good),
        replacement: text_(item.replacement), replacementSince: text_(item.replacement_since) },
      linesPath: text_(lines.path),
      lines: Object.entries(lines.by_release || {}).filter(([, line]) => Number.isInteger(line))
        .map(([release, line]) => [String(release), line]),
      recognisedBy: (item.recognised_by || []).filter((t) => t).map(String),
    };
  }

  const score = (m) => [m.exact ? 1 : 0, m.exception !== null ? 1 : 0, -m.chain, m.recognised ? 1 : 0, m.fixed,
    -m.wording];
  function compare(a, b) {
    const sa = score(a), sb = score(b);
    for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) return sb[i] - sa[i];
    return a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0;
  }

  /* Every entry's wordings parsed once; `answer` (or `find`) handles one paste. */
  class Lookup {
    /* `options.library`: the library's name for the release advice; `options.generic`: the
     * wordings every error of a kind shares (the index's `generic`; Python's alone by default). */
    constructor(entries, cap = CAP, options = {}) {
      this.cap = cap;
      this.library = options.library || "the library";
      const generic = options.generic || GENERIC_WORDINGS;
      this.items = [];
      this.ignored = [];
      this.known = [];
      for (const item of entries) {
        const one = known(item);
        this.known.push(one);
        one.wordings.forEach((wording, index) => {
          let template;
          try {
            template = new MessageTemplate(strip(plainQuotes(wording.message)));
          } catch (error) {
            if (!(error instanceof TemplateSyntaxError)) throw error;
            this.ignored.push([one.id, `wording ${index}: ${error.message}`]);
            return;
          }
          const reason = isDegenerate(template, generic);
          if (reason) { this.ignored.push([one.id, `wording ${index}: ${reason}`]); return; }
          const pieces = [...new Set(template.pieces.filter((p) => p))].sort((a, b) => b.length - a.length);
          const fixed = template.pieces.reduce((n, piece) => n + points(piece), 0);
          this.items.push({ known: one, wording: index, template, pieces, fixed });
        });
      }
    }
    find(pasted, release = null) { return this.answer(pasted, release).matches; }
    answer(pasted, release = null) {
      const meter = new Meter();
      const kept = keepTail(pasted, this.cap);
      const text = normalize(kept, meter);
      const size = points(kept), cut = points(pasted) - size;
      if (!text) return { matches: [], cut, kept: size, work: meter.work };
      const options = candidates(text, meter);
      const best = new Map();
      for (const item of this.items) {
        const found = matchOne(item, text, options, meter);
        if (found !== null && (!best.has(item.known.id) || compare(found, best.get(item.known.id)) < 0)) {
          best.set(item.known.id, found);
        }
      }
      let matches = toldApart([...best.values()], text, meter).sort(compare);
      const frames = matches.some((m) => m.known.lines.length) ? framesIn(text, meter) : [];
      matches = matches.map((m) => withRelease(m, frames, release, this.library));
      return { matches, cut, kept: size, work: meter.work };
    }
  }

  /* Whether the text holds the piece, counting what the scan read (lookup.py:_has_piece); used with
   * `every` or `some`, which stop at the first piece that decides. */
  function hasPiece(text, piece, meter) {
    const at = text.indexOf(piece);
    meter.work += at < 0 ? text.length : at + piece.length;
    return at >= 0;
  }

  /* Drop an entry whose `recognised_by` texts a paste showing more than the bare message lacks
   * (lookup.py:_told_apart). */
  function toldApart(matches, text, meter) {
    const doubtful = new Set(matches.filter((m) => m.known.recognisedBy.length && !m.recognised));
    if (!doubtful.size) return matches;
    meter.work += text.length;
    const bare = !text.includes("\n");
    return matches.filter((m) => !doubtful.has(m) || (bare && m.exact));
  }

  function matchOne(item, text, options, meter) {
    // A wording can only match a text holding every one of its fixed pieces.
    if (!item.pieces.every((piece) => hasPiece(text, piece, meter))) return null;
    const wording = item.known.wordings[item.wording];
    // Whether the text holds one of the entry's `recognised_by` texts.
    const recognised = item.known.recognisedBy.some((piece) => hasPiece(text, piece, meter));
    const make = (values, exception, exact, chain) => ({ entry: item.known.entry, known: item.known, values, exception,
      exact, fixed: item.fixed, wording: item.wording, matched: wording, chain, release: null, recognised });
    let best = null;
    for (const option of options) {
      if (option.exception !== null && !sameException(option.exception, wording.exception)) continue;
      const values = item.template.match(option.message, meter);
      if (values !== null) {
        const found = make(values, option.exception, true, option.chain);
        if (best === null || compare(found, best) < 0) best = found;
      }
    }
    if (best === null) {
      const values = item.template.search(text, meter);
      if (values !== null) best = make(values, null, false, CHAIN);
    }
    return best;
  }

  /* -- rule 6: the release a paste came from ------------------------------------------------- */

  function framesIn(text, meter) {
    meter.work += text.length;
    return [...text.matchAll(FRAME)].map((m) => [m[1].replaceAll("\\", "/"), Number(m[2])]);
  }


  function releasesInPaste(one, frames) {
    if (!one.linesPath || !one.lines.length) return [];
    const installed = one.linesPath;
    const seen = new Set(frames.filter(([path]) => path === installed || path.endsWith("/" + installed))
      .map(([, line]) => line));
    return one.lines.filter(([, line]) => seen.has(line)).map(([release]) => release);
  }

  function withRelease(match, frames, release, library) {
    const releases = release ? [release] : releasesInPaste(match.known, frames);
    if (!releases.length) return match;
    return { ...match, release: verdict(match.known.releases, releases, Boolean(release), library) };
  }

  function verdict(facts, releases, given = false, library = "the library") {
    const where = describe(releases);
    const inside = facts.raises !== null ? releases.map((r) => contains(facts.raises, r)) : [null];
    if (inside.includes(null)) return { releases, given, raises: null, advice: "" };
    if (!inside.some(Boolean)) {
      return { releases, given, raises: false, advice: `${library} ${where} does not raise it as documented (it raises ` +
        `in ${facts.raises}): the paste may come from another release or code.` };
    }
    if (!inside.every(Boolean)) {
      return { releases, given, raises: null, advice: `Of ${library} ${where}, only some raise it (${facts.raises}).` };
    }
    return { releases, given, raises: true, advice: advice(facts, releases) };
  }

  function advice(facts, releases) {
    const back = facts.lastGood ? ` or downgrade to ${facts.lastGood}, the last release where the old code ran` : "";
    if (facts.replacement && facts.replacementSince) {
      if (releases.every((r) => contains(`>=${facts.replacementSince}`, r))) {
        return `Use ${facts.replacement} (available since ${facts.replacementSince}).`;
      }
      return `Upgrade to ${facts.replacementSince} or later and use ${facts.replacement}${back ? "," : ""}${back}.`;
    }
    if (facts.replacement) return `Use ${facts.replacement}.`;
    if (back) return `Apply the fix on this page,${back}.`;
    return "Apply the fix on this page.";
  }

  const describe = (releases) => (releases.length === 1 ? releases[0] : `${releases[0]} – ${releases[releases.length - 1]}`);

  /* Does the PEP 440 `specifier` contain the final release `release`? Release numbers only:
   * ==, !=, <, <=, >, >=, ~=, `==X.*` / `!=X.*`, comma = and; null when not understood.
   * tests/site/test_lookup_js.py checks it against `packaging`, which lookup.py uses. */
  function contains(specifier, release) {
    if (specifier.includes("||")) {  // parts joined by "||": any part may contain it
      const parts = specifier.split("||").map((part) => contains(part, release));
      return parts.includes(true) ? true : parts.includes(null) ? null : false;
    }
    if (!PLAIN_RELEASE.test(release)) return null;
    const version = release.split(".").map(Number);
    let result = true;
    for (const raw of specifier.split(",")) {
      const clause = strip(raw);
      if (!clause) continue;
      const m = CLAUSE.exec(clause);
      if (!m) return null;
      const [, op, target, wildcard] = m;
      const wanted = target.split(".").map(Number);
      if (wildcard && op !== "==" && op !== "!=") return null;
      if (op === "~=" && wanted.length < 2) return null;
      if (!holds(op, version, wanted, Boolean(wildcard))) result = false;
    }
    return result;
  }

  /* Release tuples compared as PEP 440 does: missing parts are zeros. */
  function order(a, b) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const x = a[i] || 0, y = b[i] || 0;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  }

  function holds(op, version, wanted, wildcard) {
    const prefix = (length) => order(version.slice(0, length).concat(Array(Math.max(length - version.length, 0)).fill(0)),
      wanted.slice(0, length)) === 0;
    switch (op) {
      case "==": return wildcard ? prefix(wanted.length) : order(version, wanted) === 0;
      case "!=": return wildcard ? !prefix(wanted.length) : order(version, wanted) !== 0;
      case "<": return order(version, wanted) < 0;
      case "<=": return order(version, wanted) <= 0;
      case ">": return order(version, wanted) > 0;
      case ">=": return order(version, wanted) >= 0;
      case "~=": return order(version, wanted) >= 0 && prefix(wanted.length - 1);
      default: return false;
    }
  }

  /* -- display helper for errorkb.js (no matching rule) --------------------------------------- */

  /* A title's Markdown code spans, as [{text, code}] pieces: a run of N backticks opens a span
   * that the next run of exactly N closes (one space inside each end is dropped when both are
   * there, as CommonMark does); an unclosed run is plain text. The caller puts each piece in a
   * text node or a <code> element's textContent, so a title can never become markup. */
  function codeSpans(text) {
    const pieces = [];
    let plain = "", i = 0;
    while (i < text.length) {
      if (text[i] !== "`") { plain += text[i++]; continue; }
      let run = 0;
      while (text[i + run] === "`") run++;
      let close = -1, j = i + run;
      while (j < text.length) {
        if (text[j] !== "`") { j++; continue; }
        let other = 0;
        while (text[j + other] === "`") other++;
        if (other === run) { close = j; break; }
        j += other;
      }
      if (close < 0) { plain += text.slice(i, i + run); i += run; continue; }
      let code = text.slice(i + run, close);
      if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim()) code = code.slice(1, -1);
      if (plain) pieces.push({ text: plain, code: false });
      pieces.push({ text: code, code: true });
      plain = "";
      i = close + run;
    }
    if (plain) pieces.push({ text: plain, code: false });
    return pieces;
  }

  return {
    MessageTemplate, TemplateSyntaxError, Meter, Lookup, candidates, normalize, parse, keepTail, isDegenerate, fixedText,
    contains, verdict, known, codeSpans, CAP, CHAIN,
    patterns: { ANSI, PREFIX, SUFFIX, EXCEPTION_LINE, STOP_LINE, FRAME, PLAIN_RELEASE, CLAUSE },
  };
});
