/**
 * A strict reader of the XML junit.ts writes (no parser is among the dependencies): elements,
 * double-quoted attributes, text, the five entities and character references. It throws on anything
 * not well-formed: a raw `<` or `&`, a character XML 1.0 forbids, `]]>` in text, a tag closed out of
 * order, an attribute given twice, anything after the root.
 */
export type XmlElement = {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
};

const NAME = /^[A-Za-z_][\w.-]*/;
// Tab, LF, CR and every character from U+0020 but the surrogates and U+FFFE/U+FFFF; pairs are whole characters.
const ALLOWED = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string, where: string): string {
  if (!ALLOWED.test(raw)) throw new Error(`a character XML 1.0 forbids in ${where}: ${JSON.stringify(raw)}`);
  if (raw.includes('<')) throw new Error(`a raw < in ${where}`);
  return raw.replace(/&([^;]*);|&/g, (whole, ref: string | undefined) => {
    if (ref === undefined) throw new Error(`a raw & in ${where}`);
    if (ref in NAMED) return NAMED[ref] as string;
    const code = /^#x([0-9a-fA-F]+)$/.exec(ref)?.[1] ?? /^#(\d+)$/.exec(ref)?.[1];
    if (code === undefined) throw new Error(`unknown entity ${whole} in ${where}`);
    const char = String.fromCodePoint(Number.parseInt(code, ref.startsWith('#x') ? 16 : 10));
    if (!ALLOWED.test(char)) throw new Error(`a reference to a forbidden character in ${where}: ${whole}`);
    return char;
  });
}

export function parseXml(xml: string): XmlElement {
  let at = 0;
  const rest = () => xml.slice(at);
  const expect = (text: string) => {
    if (!xml.startsWith(text, at)) throw new Error(`expected ${text} at ${at}: ${rest().slice(0, 40)}`);
    at += text.length;
  };
  const space = () => {
    at += /^\s*/.exec(rest())?.[0].length ?? 0;
  };
  const name = () => {
    const found = NAME.exec(rest())?.[0];
    if (!found) throw new Error(`expected a name at ${at}: ${rest().slice(0, 40)}`);
    at += found.length;
    return found;
  };
  function element(): XmlElement {
    expect('<');
    const el: XmlElement = { name: name(), attributes: {}, children: [], text: '' };
    for (;;) {
      space();
      if (xml.startsWith('/>', at)) {
        at += 2;
        return el;
      }
      if (xml.startsWith('>', at)) break;
      const key = name();
      if (key in el.attributes) throw new Error(`attribute ${key} given twice on <${el.name}>`);
      expect('="');
      const end = xml.indexOf('"', at);
      if (end < 0) throw new Error(`attribute ${key} never closed`);
      el.attributes[key] = decode(xml.slice(at, end), `attribute ${key} of <${el.name}>`);
      at = end + 1;
    }
    at += 1;
    for (;;) {
      const next = xml.indexOf('<', at);
      if (next < 0) throw new Error(`<${el.name}> never closed`);
      const raw = xml.slice(at, next);
      if (raw.includes(']]>')) throw new Error(`]]> in the text of <${el.name}>`);
      el.text += decode(raw, `the text of <${el.name}>`);
      at = next;
      if (xml.startsWith('</', at)) {
        at += 2;
        const closing = name();
        if (closing !== el.name) throw new Error(`</${closing}> closes <${el.name}>`);
        expect('>');
        return el;
      }
      el.children.push(element());
    }
  }
  if (xml.startsWith('<?xml')) at = xml.indexOf('?>') + 2;
  space();
  const root = element();
  space();
  if (at !== xml.length) throw new Error(`text after the root element: ${rest().slice(0, 40)}`);
  return root;
}
