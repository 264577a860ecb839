// String formats checked by the `format` keyword (JSON Schema names).
// Unknown formats always pass, as in TypeBox.
import { domainToUnicode } from "node:url";

const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (year) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

export function IsDate(value) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [+m[1], +m[2], +m[3]];
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month]);
}

export function IsTime(value, strictTimeZone = true) {
  const m = /^(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(?:z|([+-])(\d{2}):(\d{2}))?$/i.exec(value);
  if (!m) return false;
  const [hour, minute, second] = [+m[1], +m[2], +m[3]];
  const sign = m[4] === "-" ? -1 : 1;
  const offsetHour = +(m[5] || 0);
  const offsetMinute = +(m[6] || 0);
  if (offsetHour > 23 || offsetMinute > 59) return false;
  if (strictTimeZone && !m[4] && !value.toLowerCase().includes("z")) return false;
  if (hour <= 23 && minute <= 59 && second < 60) return true;
  // A leap second is only valid at 23:59:60 UTC.
  const utcMinute = minute - offsetMinute * sign;
  const utcHour = hour - offsetHour * sign - (utcMinute < 0 ? 1 : 0);
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61;
}

export function IsDateTime(value, strictTimeZone = true) {
  const parts = value.split(/T/i);
  return parts.length === 2 && IsDate(parts[0]) && IsTime(parts[1], strictTimeZone);
}

const durationTime = "T(?:\\d+H(?:\\d+M(?:\\d+S)?)?|\\d+M(?:\\d+S)?|\\d+S)";
const durationDate = "(?:\\d+Y(?:\\d+M(?:\\d+D)?)?|\\d+M(?:\\d+D)?|\\d+D)";
const DURATION = new RegExp(`^P(?:${durationDate}(?:${durationTime})?|${durationTime}|\\d+W)$`);
export const IsDuration = (value) => DURATION.test(value);

const LOCAL_ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+";
const DOMAIN_LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const EMAIL = new RegExp(`^(?!.*\\.\\.)${LOCAL_ATOM}(?:\\.${LOCAL_ATOM})*@${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})*$`, "i");
export const IsEmail = (value) => EMAIL.test(value);

const IDN_ATOM = "[\\p{L}\\p{N}!#$%&'*+/=?^_`{|}~-]+";
const IDN_LABEL = "[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]{0,61}[\\p{L}\\p{N}])?";
const IDN_EMAIL = new RegExp(`^(?!.*\\.\\.)${IDN_ATOM}(?:\\.${IDN_ATOM})*@${IDN_LABEL}(?:\\.${IDN_LABEL})*$`, "iu");
export const IsIdnEmail = (value) => IDN_EMAIL.test(value);

// ---------------------------------------------------------------- hostnames
const hyphenRules = (label) => !label.startsWith("-") && !label.endsWith("-") && !(label.length >= 4 && label[2] === "-" && label[3] === "-");
const isPunycode = (label) => /^xn--/i.test(label);
function punyLabelOk(label) {
  const decoded = domainToUnicode(label.toLowerCase());
  return decoded !== "" && !isPunycode(decoded) && unicodeLabelOk(decoded);
}
function asciiLabelOk(label) {
  return hyphenRules(label) && /^[A-Za-z0-9-]+$/.test(label);
}
function unicodeLabelOk(label) {
  const points = [...label];
  if (points.length === 0) return false;
  if (label.startsWith("-") || label.endsWith("-")) return false;
  if (points.length >= 4 && points[2] === "-" && points[3] === "-") return false;
  if (/^\p{M}/u.test(label)) return false;
  if (/[\u0640\u07fa\u302e\u302f\u3031-\u3035\u303b]/u.test(label)) return false;
  if (label.includes("\u30fb") && !/[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u.test(label.replace(/\u30fb/g, ""))) return false;
  if (/[\u0660-\u0669]/.test(label) && /[\u06f0-\u06f9]/.test(label)) return false;
  return true;
}
function labelOk(label, unicode) {
  if (label.length === 0 || label.length > 63) return false;
  if (isPunycode(label)) return punyLabelOk(label);
  return unicode ? unicodeLabelOk(label) : asciiLabelOk(label);
}
export function IsHostname(value) {
  if (value.length === 0 || value.length > 253 || value.endsWith(".")) return false;
  return value.split(".").every((label) => labelOk(label, false));
}
export function IsIdnHostname(value) {
  if (value.length === 0 || value.includes(" ")) return false;
  const canonical = value.normalize("NFC").replace(/[\u002e\u3002\uff0e\uff61]/g, ".");
  if (canonical.length > 253) return false;
  return canonical.split(".").every((label) => labelOk(label, true));
}

// ---------------------------------------------------------------- addresses
function ipv4Ok(text) {
  const parts = text.split(".");
  return parts.length === 4 && parts.every((p) => /^(?:0|[1-9][0-9]{0,2})$/.test(p) && +p <= 255);
}
export const IsIPv4 = (value) => ipv4Ok(value);

export function IsIPv6(value) {
  if (value === "::") return true;
  const halves = value.split("::");
  if (halves.length > 2 || value.length === 0) return false;
  const groups = (text) => (text === "" ? [] : text.split(":"));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const all = [...head, ...tail];
  let count = 0;
  for (let i = 0; i < all.length; i++) {
    const group = all[i];
    if (i === all.length - 1 && group.includes(".")) {
      if (!ipv4Ok(group)) return false;
      count += 2;
    } else if (/^[0-9a-f]{1,4}$/i.test(group)) {
      count += 1;
    } else {
      return false;
    }
  }
  return halves.length === 2 ? count <= 7 : count === 8;
}

// ---------------------------------------------------------------- uris
const UNRESERVED = /[A-Za-z0-9\-._~]/;
const SUB_DELIM = /[!$&'()*+,;=]/;
const isPchar = (ch) => UNRESERVED.test(ch) || SUB_DELIM.test(ch) || ch === ":" || ch === "@";
function percentOk(text, i) {
  return /^%[0-9a-fA-F]{2}/.test(text.slice(i));
}
export function IsUri(value) {
  const scheme = /^[A-Za-z][A-Za-z0-9+\-.]*:/.exec(value);
  if (!scheme) return false;
  let i = scheme[0].length;
  if (value.startsWith("//", i)) {
    i += 2;
    const end = value.slice(i).search(/[/?#]/);
    const authority = end === -1 ? value.slice(i) : value.slice(i, i + end);
    const at = authority.indexOf("@");
    let host = authority;
    if (at !== -1) {
      const user = authority.slice(0, at);
      for (let j = 0; j < user.length; j++) {
        if (user[j] === "%") {
          if (!percentOk(user, j)) return false;
          j += 2;
        } else if (!(UNRESERVED.test(user[j]) || SUB_DELIM.test(user[j]) || user[j] === ":")) return false;
      }
      host = authority.slice(at + 1);
    }
    let port = "";
    if (host.startsWith("[")) {
      const close = host.indexOf("]");
      if (close === -1) return false;
      port = host.slice(close + 1);
      if (port !== "" && !port.startsWith(":")) return false;
    } else {
      const colon = host.indexOf(":");
      const name = colon === -1 ? host : host.slice(0, colon);
      port = colon === -1 ? "" : host.slice(colon);
      for (const ch of name) if (ch.charCodeAt(0) < 128 && !(UNRESERVED.test(ch) || SUB_DELIM.test(ch))) return false;
    }
    if (port !== "" && !/^:[0-9]*$/.test(port)) return false;
    i += authority.length;
  }
  for (; i < value.length; i++) {
    const ch = value[i];
    if (ch === "%") {
      if (!percentOk(value, i)) return false;
      i += 2;
    } else if (ch.charCodeAt(0) > 127 || !(isPchar(ch) || ch === "/" || ch === "?" || ch === "#")) return false;
  }
  return true;
}

const URI_REF_CHARS = "[^\\s[\\]{}<>^`|]*";
const URI_REFERENCE = new RegExp(`^(?!.*[^\\x00-\\x7f])(?!.*\\\\)(?:(?:[a-z][a-z0-9+\\-.]*:)?(?://${URI_REF_CHARS})?|${URI_REF_CHARS})(?:\\?${URI_REF_CHARS})?(?:#${URI_REF_CHARS})?$`, "i");
export const IsUriReference = (value) => URI_REFERENCE.test(value);

function parsesAsUrl(value, base) {
  try {
    new URL(value, base);
    return true;
  } catch {
    return false;
  }
}
export const IsIri = (value) => parsesAsUrl(value);
export function IsIriReference(value) {
  if (value.includes(" ") || value.includes("\\") || /[\x00-\x1f\x7f]/.test(value) || /%(?![0-9a-fA-F]{2})/.test(value)) return false;
  if (value === "") return true;
  const colon = value.indexOf(":");
  const hasScheme = colon > 0 && /^[a-zA-Z][a-zA-Z0-9+\-.]*$/.test(value.slice(0, colon));
  if (!hasScheme && colon === -1 && /^[a-zA-Z][a-zA-Z0-9+\-.]*\/\//.test(value)) return false;
  return parsesAsUrl(value, "http://example.com");
}

const TEMPLATE_VAR = "(?:[a-z0-9_]|%[0-9a-f]{2})+(?::[1-9][0-9]{0,3}|\\*)?";
const URI_TEMPLATE = new RegExp(`^(?:(?:[^\\x00-\\x20"'<>%\\\\^\`{|}]|%[0-9a-f]{2})|\\{[+#./;?&=,!@|]?${TEMPLATE_VAR}(?:,${TEMPLATE_VAR})*\\})*$`, "i");
export const IsUriTemplate = (value) => URI_TEMPLATE.test(value);

function publicIpv4(host) {
  const parts = host.split(".").map(Number);
  const [a, b] = parts;
  if (a === 10 || a === 127 || (a === 169 && b === 254) || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31)) return false;
  return a >= 1 && a <= 223 && parts[3] >= 1 && parts[3] <= 254;
}
export function IsUrl(value) {
  const m = /^(?:https?|ftp):\/\/(?:\S+(?::\S*)?@)?([^\s/:?#]+)(?::(\d{2,5}))?(?:\/\S*)?$/iu.exec(value);
  if (!m) return false;
  const host = m[1];
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(host)) return publicIpv4(host);
  const labels = host.split(".");
  const word = /^(?:[a-z0-9\u00a1-\uffff]+-)*[a-z0-9\u00a1-\uffff]+$/iu;
  const tld = labels[labels.length - 1];
  return labels.length >= 2 && labels.every((l) => word.test(l)) && /^[a-z\u00a1-\uffff]{2,}$/iu.test(tld);
}

export const IsUuid = (value) => /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(value);
export const IsJsonPointer = (value) => /^(?:\/(?:[^~/]|~0|~1)*)*$/.test(value);
export const IsRelativeJsonPointer = (value) => /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$/.test(value);
export const IsJsonPointerUriFragment = (value) => /^#(?:\/(?:[a-z0-9_\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*$/i.test(value);
export function IsRegex(value) {
  if (value.length === 0) return false;
  try {
    new RegExp(value);
    return true;
  } catch {
    return false;
  }
}

const formats = new Map([
  ["date-time", IsDateTime], ["date", IsDate], ["duration", IsDuration], ["email", IsEmail], ["hostname", IsHostname],
  ["idn-email", IsIdnEmail], ["idn-hostname", IsIdnHostname], ["ipv4", IsIPv4], ["ipv6", IsIPv6],
  ["iri-reference", IsIriReference], ["iri", IsIri], ["json-pointer-uri-fragment", IsJsonPointerUriFragment],
  ["json-pointer", IsJsonPointer], ["regex", IsRegex], ["relative-json-pointer", IsRelativeJsonPointer],
  ["time", IsTime], ["uri-reference", IsUriReference], ["uri-template", IsUriTemplate], ["uri", IsUri],
  ["url", IsUrl], ["uuid", IsUuid],
]);

/** Whether `value` satisfies the named format (unknown formats pass). */
export function testFormat(format, value) {
  const check = formats.get(format);
  return check ? check(value) : true;
}
