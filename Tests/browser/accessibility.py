"""WCAG 2.2 AA checks on the page a browser test is looking at (issue 61, part 3), from Chromium's
computed styles and the accessibility tree's inputs, so every page the browser tests visit is
checked where it stands:

- text contrast: every visible text against the background behind it (the first opaque one up
  the tree), at least 4.5:1 (3:1 for large text: 24 px, or 18.66 px bold);
- the borders of text fields and of buttons without a filled background against their background:
  at least 3:1 (non-text contrast);
- every visible form field has a label (a <label for>, a wrapping <label>, aria-label or
  aria-labelledby), every button and link an accessible name; buttons that share a visible text but
  act on different rows have different aria-labels;
- the keyboard: Tab reaches every visible, enabled control once, in order, without a trap.

`audit(driver, page)` fails the test (browser_support.fail) naming the page and each problem.
"""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser_support import fail

# Runs in the page: returns a list of problems, each a sentence.
AUDIT_SCRIPT = r"""
function rgba(text) {
  const m = text.match(/rgba?\(([^)]+)\)/);
  if (!m) return null;
  const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
  return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
}
function lum(c) {
  const ch = v => { v = v / 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b);
}
function ratio(a, b) { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }
function background(el) {
  for (let e = el; e; e = e.parentElement) {
    const c = rgba(getComputedStyle(e).backgroundColor);
    if (c && c.a >= 0.99) return c;
  }
  return {r: 255, g: 255, b: 255, a: 1};
}
function visible(el) {
  const s = getComputedStyle(el);
  if (s.visibility === "hidden" || s.display === "none" || Number(s.opacity) === 0) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && !el.closest("[hidden]");
}
function describe(el) {
  const text = (el.innerText || el.value || el.getAttribute("aria-label") || "").trim().slice(0, 40);
  return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (text ? ` "${text}"` : "");
}
const problems = [];
for (const el of document.body.querySelectorAll("*")) {
  if (!visible(el) || ["SCRIPT", "STYLE", "IMG", "svg"].includes(el.tagName)) continue;
  const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
  if (own) {
    const s = getComputedStyle(el), fg = rgba(s.color), bg = background(el);
    const size = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (fg && ratio(fg, bg) < need) problems.push(`${describe(el)}: text contrast ${ratio(fg, bg).toFixed(2)}:1 < ${need}:1`);
  }
  const s = getComputedStyle(el);
  const field = el.matches("input[type=text], input[type=password], input:not([type]), textarea, select");
  const outlined = el.tagName === "BUTTON" && (rgba(s.backgroundColor) || {a: 0}).a < 0.99 || (el.tagName === "BUTTON" && parseFloat(s.borderTopWidth) > 0);
  if ((field || outlined) && parseFloat(s.borderTopWidth) > 0) {
    const border = rgba(s.borderTopColor), bg = background(el.parentElement);
    if (border && ratio(border, bg) < 3) problems.push(`${describe(el)}: border contrast ${ratio(border, bg).toFixed(2)}:1 < 3:1`);
  }
  if (el.matches("input:not([type=hidden]), textarea, select")) {
    const labelled = (el.labels && el.labels.length) || el.getAttribute("aria-label") || el.getAttribute("aria-labelledby");
    if (!labelled) problems.push(`${describe(el)}: a form field without a label`);
  }
  if (el.matches("button, a[href]")) {
    const name = (el.getAttribute("aria-label") || el.innerText || el.getAttribute("title") || "").trim()
      || Array.from(el.querySelectorAll("img")).map(i => i.alt).join("").trim();
    if (!name) problems.push(`${describe(el)}: no accessible name`);
  }
}
// Buttons with the same visible text act on different rows: their accessible names must differ.
const seen = {};
for (const b of document.querySelectorAll("button")) {
  if (!visible(b)) continue;
  const name = (b.getAttribute("aria-label") || b.innerText).trim();
  const form = b.closest("form");
  const key = name + "|" + (form ? form.action : "");
  seen[name] = seen[name] || new Set();
  seen[name].add(key);
}
for (const [name, actions] of Object.entries(seen)) {
  if (actions.size > 1) problems.push(`${actions.size} buttons named "${name}" do different things`);
}
return problems;
"""

FOCUSABLE_SCRIPT = r"""
const list = Array.from(document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, [tabindex]"))
  .filter(el => !el.disabled && el.tabIndex >= 0)
  .filter(el => { const s = getComputedStyle(el); const r = el.getBoundingClientRect();
                  return s.visibility !== "hidden" && s.display !== "none" && r.width > 0 && r.height > 0 && !el.closest("[hidden]"); });
return list;
"""


def audit(driver, page):
    """Fails the test when the current page misses a WCAG 2.2 AA check above; `page` names it."""
    problems = driver.execute_script(AUDIT_SCRIPT)
    problems += keyboard_problems(driver)
    if problems:
        fail(f"{page}: " + "; ".join(problems[:12]) + (f" (and {len(problems) - 12} more)" if len(problems) > 12 else ""))


def keyboard_problems(driver):
    """Tabs from the top of the page through every focusable control and back to the first: each
    visible control is reached exactly once per round (no trap, nothing left out). Leaves the
    focus where it started."""
    controls = driver.execute_script(FOCUSABLE_SCRIPT)
    if not controls:
        return []
    start = driver.switch_to.active_element
    driver.execute_script("document.activeElement && document.activeElement.blur(); window.getSelection().removeAllRanges();")
    body = driver.find_element(By.TAG_NAME, "body")
    reached = []
    for _ in range(len(controls) + 3):
        driver.switch_to.active_element.send_keys(Keys.TAB) if reached else body.send_keys(Keys.TAB)
        focused = driver.switch_to.active_element
        if reached and focused == reached[0]:
            break
        if focused.tag_name == "body":
            continue
        if focused in reached:
            return [f"the keyboard is trapped: Tab came back to {focused.tag_name}#{focused.get_attribute('id')}"]
        reached.append(focused)
    missing = [c for c in controls if c not in reached]
    driver.execute_script("document.activeElement && document.activeElement.blur();"
                          "if (arguments[0] && arguments[0] !== document.body) arguments[0].focus()", start)
    return [f"Tab never reaches {c.tag_name}#{c.get_attribute('id') or c.text[:30]!r}" for c in missing]


BAD_PAGE = """<!doctype html><html lang="en"><body style="background:#fff">
<p style="color:#bbbbbb">Pale text</p>
<input type="text" id="nameless" style="border:1px solid #dddddd">
<button type="button" style="background:transparent;border:1px solid #eeeeee;color:#000">Outlined</button>
<form action="https://app.example/a"><button>Remove</button></form><form action="https://app.example/b"><button>Remove</button></form>
<a href="https://app.example/x" id="empty-link"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="20" height="20"></a>
</body></html>"""


def self_test():
    """The audit on a page made to fail every check: each problem must be reported (so a page that
    passes has passed something)."""
    import base64
    from browser_support import check, chromium
    driver = chromium()
    try:
        driver.get("data:text/html;base64," + base64.b64encode(BAD_PAGE.encode()).decode())
        problems = " | ".join(driver.execute_script(AUDIT_SCRIPT))
        for expected in ('"Pale text": text contrast', "input#nameless: border contrast", "input#nameless: a form field without a label",
                         'button "Outlined": border contrast', '2 buttons named "Remove" do different things',
                         "a#empty-link: no accessible name"):
            check(expected in problems, f"the audit missed {expected!r}: {problems}")
        driver.get("data:text/html;base64," + base64.b64encode(
            b'<!doctype html><body><input aria-label="a" id="a"><input aria-label="b" id="b"><a href="/c" id="c">c</a></body>').decode())
        check(keyboard_problems(driver) == [], "the keyboard walk fails a page Tab walks through")
        driver.execute_script("document.getElementById('b').addEventListener('keydown', e => { if (e.key === 'Tab') e.preventDefault(); })")
        check(any("trapped" in p or "never reaches" in p for p in keyboard_problems(driver)), "the keyboard walk missed a trap")
    finally:
        driver.quit()
    print("accessibility audit self-test: OK (every check reported its problem)")


if __name__ == "__main__":
    self_test()
