/* errorkb page glue: the "paste your error" box.
 *
 * Any element `<div class="ekb-lookup" data-index="api/errors/index.json">` (the address is
 * relative to the page's URL) becomes a text box; what a reader pastes is matched against
 * every entry's message template by lookup.js, entirely in the browser. Material's instant
 * navigation swaps pages without a reload, so this runs on every `document$` emission rather
 * than once on DOMContentLoaded. A paste reaches the text box bounded: its last 64 KiB (the
 * lookup's cap), cut before the textarea lays it out.
 */
(function () {
  "use strict";
  const indexes = new Map(); // absolute index URL → Promise of {lookup, count}

  function loadIndex(url) {
    if (!indexes.has(url)) {
      indexes.set(url, fetch(url)
        .then((response) => {
          if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
          return response.json();
        })
        .then((data) => ({
          // The matcher's rules come with the index (errorkb/lookup/_rules.py), never kept in this page.
          lookup: new window.errorkbLookup.Lookup(data.entries, undefined, {
            library: (data.library || {}).name, rules: data.rules, classes: (data.library || {}).classes,
            others: (data.library || {}).others, runtime: (data.runtime || {}).packages }),
          library: (data.library || {}).name || "the library",
          staleWhy: data.stale_why || "",
          outcomes: data.outcomes || { words: {}, icons: {} },
          count: data.entries.length,
        })));
    }
    return indexes.get(url);
  }

  const element = (tag, props = {}, ...children) => {
    const node = Object.assign(document.createElement(tag), props);
    for (const child of children) node.append(child);
    return node;
  };

  // What a badge says of each outcome, and what each target is in a reader's words, as the page's badges
  // say it: from the index (render.badge_words); an older index without `targets` names the target itself.
  let outcomes = { words: {}, icons: {}, targets: {} };

  function chip(badge) {
    const stale = badge.stale ? ` · stale${staleWhy ? ": " + staleWhy : ""}` : "";  // never without its why
    const words = outcomes.words[badge.outcome] || badge.outcome;
    const icon = outcomes.icons[badge.outcome];
    const where = `${((outcomes.targets || {})[badge.target] || {}).name || badge.target} · ${badge.device}`;
    const verdict = ["pass", "partial", "fail"].includes(badge.outcome);  // the others say what they are
    return element("span", {
      className: `ekb-mini ekb-${badge.outcome}${badge.stale ? " ekb-stale" : ""}`,
      // a pass on a device that rests on the object the function ran on says so (`basis`, its words shipped as data)
      title: `${where}: ${words}${badge.basis ? " · " + badge.basis : ""}${stale}${badge.date ? " · " + badge.date : ""}`,
      // "stale" in words, as the page's chips say it (_macros.md.j2 `mini`): hatching and a hover are no words
      textContent: `${icon ? icon + " " : ""}${where}${verdict ? "" : ": " + words}${badge.stale ? " · stale" : ""}`,
    });
  }

  /* A badge as the entry's page shows it (`render.shown_json`, in the index as `shown`): the verdicts, then one
   * chip per reason for those that are none, folded by the page's own rule and in its words. */
  function shownChip(one) {
    const stale = one.stale && staleWhy ? `: ${staleWhy}` : "";  // the label says "stale"; the hover, why
    return element("span", {
      className: `ekb-mini ekb-${one.outcome}${one.stale ? " ekb-stale" : ""}`,
      title: `${one.where}: ${one.label}${one.date ? " · " + one.date : ""}${one.folded && one.said ? ": " + one.said : ""}${stale}`,
      textContent: `${one.icon ? one.icon + " " : ""}${one.where}${one.folded ? ": " + one.label : ""}${one.stale ? " · stale" : ""}`,
    });
  }

  /* Where the error comes from, in the page's words: the matcher's `origin` (lookup.js, one reading with
   * `errorkb lookup`; never the index item's own field, which an older index lacks), or nothing where it has none
   * (a removed API in an older index: its function is the replacement, where no reader is sent). */
  const origin = (known) => (known.origin
    ? [` ${known.origin[0]} `, element("code", { textContent: known.origin[1] })]
    : []);

  /* Markdown code spans (a title, an advice) as <code>: every piece goes in as text, never HTML. */
  const inlineNodes = (text) => window.errorkbLookup.codeSpans(String(text))
    .map((piece) => (piece.code ? element("code", { textContent: piece.text }) : document.createTextNode(piece.text)));

  /* Only web addresses become links: an index could carry a `javascript:` URL. */
  function safeHref(url, root) {
    const href = new URL(String(url || ""), root);
    return href.protocol === "http:" || href.protocol === "https:" ? href.href : null;
  }

  let libraryName = "the library";  // from the index: the documented library's name
  let staleWhy = "";  // from the index: why a stale badge is stale (errorkb.results.keys.STALE_WHY)

  const describe = (releases) => (releases.length === 1 ? releases[0] : `${releases[0]} – ${releases[releases.length - 1]}`);

  /* Which wording matched, when it is not the entry's own message. */
  function wordingLine(match) {
    if (!match.wording) return "";
    const wording = match.matched;
    const where = [wording.releases && `${libraryName} ${wording.releases}`, wording.device].filter(Boolean).join(" · ");
    return element("div", { className: "ekb-lookup__wording" }, "Matched another wording of this error",
      where ? ` (${where})` : "", ": ", element("code", { textContent: wording.message }),
      ...(wording.note ? [" — ", ...inlineNodes(wording.note)] : []));
  }

  /* What the release the paste came from means: raises it or not, and what to do on it. */
  function releaseLine(match) {
    const release = match.release;
    if (!release) return "";
    const state = release.raises === true ? "raises it" : release.raises === false ? "does not raise it"
      : release.advice ? "some of them raise it" : "the entry records no release range";
    const source = release.given ? "" : " (read from the traceback's frames)";
    const kind = release.raises === true ? "raises" : release.raises === false ? "clear" : "unknown";
    return element("div", { className: `ekb-lookup__release ekb-lookup__release--${kind}` },
      element("strong", { textContent: `${libraryName} ${describe(release.releases)}` }), `${source}: ${state}.`,
      ...(release.advice ? [" ", ...inlineNodes(release.advice)] : []));
  }

  /* Why a confirmed entry is the one, or what would tell a possible one from others worded alike. */
  function reasons(match) {
    const lines = match.grade === "confirmed"
      ? match.evidence.filter((e) => e.kind !== "release").map((e) => ["why", e.detail])
      : match.missing.map((hint) => ["to tell", hint]);
    return element("ul", { className: "ekb-lookup__reasons" }, ...lines.map(([label, text]) =>
      element("li", {}, element("strong", { textContent: `${label}: ` }), ...inlineNodes(text))));
  }

  function card(match, root) {
    const entry = match.entry;
    const confirmed = match.grade === "confirmed";
    const values = Object.entries(match.values)
      .map(([expression, value]) => element("span", { className: "ekb-lookup__value" },
        element("code", { textContent: `{${expression}}` }), " = ", element("code", { textContent: value })));
    return element("li", { className: `ekb-lookup__hit ekb-lookup__hit--${confirmed ? "confirmed" : "candidate"}` },
      element("span", { className: `ekb-lookup__grade ekb-lookup__grade--${confirmed ? "confirmed" : "candidate"}`,
        textContent: confirmed ? "confirmed" : "possible" }), " ",
      element("a", { className: "ekb-lookup__title", ...(safeHref(entry.url, root) ? { href: safeHref(entry.url, root) } : {}) },
        ...inlineNodes(entry.title)),
      element("div", { className: "ekb-lookup__meta" },
        element("code", { textContent: entry.exception }), ...origin(match.known),
        match.exact ? "" : element("span", { className: "ekb-lookup__loose", textContent: " · found inside the pasted text" })),
      wordingLine(match),
      releaseLine(match),
      reasons(match),
      element("div", { className: "ekb-lookup__values" }, ...values),
      element("div", { className: "ekb-lookup__badges" },  // an older index, without `shown`: a chip per badge
        ...(Array.isArray(entry.shown) ? entry.shown.map(shownChip) : (entry.badges || []).map(chip))));
  }

  function show(results, answer, root) {
    results.replaceChildren();
    if (answer === null) return;
    if (answer.cut) {
      results.append(element("p", { className: "ekb-lookup__cut",
        textContent: `Your paste is long: matched its last ${answer.kept.toLocaleString("en")} characters ` +
          `(${answer.cut.toLocaleString("en")} cut from the start, where an error is rarely printed).` }));
    }
    if (!answer.matches.length) {
      results.append(element("p", { className: "ekb-lookup__none" },
        "No entry matches this message. Try the search box, or browse ",
        element("a", { href: new URL("errors/", root).href, textContent: "all errors" }), "."));
      return;
    }
    if (answer.confirmed.length) {
      results.append(element("ol", { className: "ekb-lookup__hits ekb-lookup__hits--confirmed" },
        ...answer.confirmed.slice(0, 5).map((match) => card(match, root))));
    }
    if (answer.candidates.length) {
      results.append(element("p", { className: "ekb-lookup__possible", textContent: answer.confirmed.length
        ? "Also possible, not confirmed:"
        : "Possibly one of these — not confirmed: this message is printed by other errors too. What would tell:" }));
      results.append(element("ol", { className: "ekb-lookup__hits ekb-lookup__hits--candidates" },
        ...answer.candidates.slice(0, 5).map((match) => card(match, root))));
    }
  }

  /* What a paste puts in the box: at most the lookup's cap (its last 64 KiB, where the error is),
   * cut before it reaches the textarea, whose layout of a megabyte froze the page for minutes.
   * The cap is the matcher's own, shipped with the index (`rules.cap`): `capOf()` resolves to it.
   * A paste that arrives before the index goes in once the cap is known. */
  function bounded(input, note, capOf) {
    let cap = null;
    const put = (text, start, end, limit) => {
      const kept = window.errorkbLookup.keepTail(text, limit);
      note(kept.length < text.length
        ? `Your paste is long: the box keeps its last ${kept.length.toLocaleString("en")} of ` +
          `${text.length.toLocaleString("en")} characters, where the error is.` : "");
      input.setRangeText(kept, start, end, "end");
      if (input.value.length > limit) input.value = window.errorkbLookup.keepTail(input.value, limit);
      input.dispatchEvent(new Event("input", { bubbles: true }));
    };
    const insert = (event, data) => {
      const text = data ? data.getData("text/plain") : "";
      if (cap !== null && text.length <= cap) return;
      event.preventDefault();
      const [start, end] = [input.selectionStart, input.selectionEnd];
      if (cap !== null) { put(text, start, end, cap); return; }
      // An index that cannot be loaded says so in the status line; the paste still goes in.
      capOf().then((limit) => { cap = limit; put(text, start, end, limit); },
                   () => put(text, start, end, text.length));
    };
    capOf().then((limit) => { cap = limit; }, () => {});
    input.addEventListener("paste", (event) => insert(event, event.clipboardData));
    input.addEventListener("drop", (event) => insert(event, event.dataTransfer));
    // Text that arrives another way (typed, set by a script) is the matcher's to cut, and it says so.
    input.addEventListener("input", () => { if (!input.value.trim()) note(""); });
  }

  function mount(box) {
    if (box.dataset.ekbMounted) return;
    box.dataset.ekbMounted = "1";
    const indexUrl = new URL(box.dataset.index, window.location.href);
    const root = new URL("../../", indexUrl); // api/errors/index.json → the site root
    const id = `ekb-paste-${Math.random().toString(36).slice(2, 8)}`;
    const input = element("textarea", {
      id, className: "ekb-lookup__input", rows: 4, spellcheck: false,
      // The page may give an example (`data-example`): the knowledge base knows its own errors.
      placeholder: "Paste an error message or a whole traceback" + (box.dataset.example ? `, e.g.\n${box.dataset.example}` : ""),
    });
    input.setAttribute("autocomplete", "off");
    const status = element("p", { className: "ekb-lookup__status" });
    const results = element("div", { className: "ekb-lookup__results" });
    results.setAttribute("aria-live", "polite");
    box.replaceChildren(
      element("label", { className: "ekb-lookup__label", htmlFor: id, textContent: "Paste your error" }),
      input, status, results);

    let timer = null;
    let kept = "";  // what the box says about the last long paste it cut
    bounded(input, (text) => { kept = text; }, () => loadIndex(indexUrl.href).then(({ lookup }) => lookup.cap));
    const update = () => loadIndex(indexUrl.href).then(({ lookup, library, staleWhy: why, outcomes: said, count }) => {
      libraryName = library;
      staleWhy = why;
      outcomes = said;
      const text = input.value;
      status.textContent = text.trim() ? kept : `Matched in your browser against the message templates of ${count} documented errors.`;
      show(results, text.trim() ? lookup.answer(text) : null, root);
    }).catch((error) => {
      status.textContent = `The error index could not be loaded (${error.message}).`;
    });
    input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(update, 120); });
    update();
  }

  function start() {
    document.querySelectorAll(".ekb-lookup[data-index]").forEach(mount);
  }

  if (typeof window.document$ !== "undefined") window.document$.subscribe(start);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
