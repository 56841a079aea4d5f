/** The one stylesheet of the web pages, served from /static/ so the CSP needs no 'unsafe-inline'. */
export const WEB_CSS = `
:root {
  --ink: #1f2430; --muted: #5d6475; --line: #dde1ea; --bg: #f6f4ef; --card: #ffffff;
  --accent: #7a4b2a; --accent-ink: #ffffff; --error: #a1251b; --error-bg: #fdecea; --ok: #1d6b3a; --ok-bg: #e8f5ec;
  color-scheme: light;
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--ink);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: var(--accent); }
.top {
  display: flex; align-items: center; justify-content: space-between; gap: 1rem; flex-wrap: wrap;
  padding: 0.75rem 1.5rem; background: var(--card); border-bottom: 1px solid var(--line);
}
.brand { font-family: Georgia, "Times New Roman", serif; font-size: 1.25rem; font-weight: 700; color: var(--ink); text-decoration: none; }
.top nav { display: flex; align-items: center; gap: 1rem; font-size: 0.95rem; }
.top nav .who { color: var(--muted); overflow-wrap: anywhere; }
.top nav a, .top nav button { white-space: nowrap; }
.top nav form { margin: 0; }
main { max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
main.narrow { max-width: 26rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1.5rem 1.75rem; margin-bottom: 1.5rem; }
h1 { font-family: Georgia, "Times New Roman", serif; font-size: 1.75rem; margin: 0 0 0.5rem; }
h2 { font-size: 1.1rem; margin: 0 0 0.75rem; }
p.lead { color: var(--muted); margin-top: 0; }
label { display: block; font-weight: 600; font-size: 0.9rem; margin: 0.9rem 0 0.3rem; }
label .optional { font-weight: 400; color: var(--muted); }
input[type=text], input[type=email], input[type=password] {
  width: 100%; padding: 0.55rem 0.7rem; font: inherit; border: 1px solid #7d8494; border-radius: 6px; background: #fff;
}
/* As specific as the rule above (a type and two attributes), and after it: an invalid field always shows its border. */
input[type][aria-invalid=true] { border: 2px solid var(--error); }
.field-error { margin: 0 0 0.3rem; font-size: 0.9rem; font-weight: 600; color: var(--error); }
.error-summary { margin: 0 0 1.5rem; padding: 1rem 1.25rem; border: 3px solid var(--error); border-radius: 10px; background: var(--card); color: var(--ink); }
.error-summary:focus { outline: 3px solid var(--accent); outline-offset: 2px; }
.error-summary-title { font-size: 1.1rem; margin: 0 0 0.5rem; }
.error-summary-list { margin: 0; padding-inline-start: 1.2rem; }
.error-summary a { color: var(--error); font-weight: 600; }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); border: 0; }
input:focus, button:focus, .error-summary:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.row { display: flex; gap: 0.75rem; }
.row > div { flex: 1; }
.inline { display: flex; gap: 0.6rem; align-items: flex-end; }
.inline > div { flex: 1; }
.inline label { margin-top: 0; }
button {
  font: inherit; font-weight: 600; padding: 0.55rem 1.1rem; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink);
}
button.secondary { background: transparent; color: var(--accent); }
button.link { border: none; background: none; color: var(--accent); padding: 0; font-weight: 400; text-decoration: underline; }
button[disabled] { opacity: 0.6; cursor: progress; }
form .actions { margin-top: 1.25rem; }
.alert { border-radius: 6px; padding: 0.75rem 1rem; margin: 1rem 0; }
.alert.error { background: var(--error-bg); color: var(--error); border: 1px solid #f2c4bf; }
.alert.success { background: var(--ok-bg); color: var(--ok); border: 1px solid #bfe2ca; }
.alert p { margin: 0.25rem 0; }
.secret { display: flex; gap: 0.5rem; align-items: center; margin: 0.5rem 0; }
.secret code {
  flex: 1; display: block; padding: 0.55rem 0.7rem; background: #fff; color: var(--ink); border: 1px dashed var(--ok);
  border-radius: 6px; font: 0.9rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; user-select: all;
}
.hint { font-size: 0.85rem; color: var(--muted); margin: 0.35rem 0 0; }
table { width: 100%; border-collapse: collapse; font-size: 0.95rem; }
th, td { text-align: start; padding: 0.5rem 0.4rem; border-bottom: 1px solid var(--line); }
th { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
td.name { font-weight: 600; word-break: break-all; }
.empty { color: var(--muted); }
.foot { text-align: center; font-size: 0.9rem; color: var(--muted); }
.eyebrow { margin: 0 0 0.35rem; font-size: 0.78rem; font-weight: 600; letter-spacing: 0.12em; text-transform: uppercase; color: var(--muted); }
.invite h1 { overflow-wrap: anywhere; }
a.button {
  display: inline-block; font-weight: 600; padding: 0.55rem 1.1rem; border-radius: 6px; text-decoration: none; text-align: center;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink);
}
a.button.secondary { background: transparent; color: var(--accent); }
.wide { display: block; width: 100%; min-height: 3rem; font-size: 1.05rem; }
a.button.wide { display: flex; align-items: center; justify-content: center; }
.stack { display: flex; flex-direction: column; gap: 0.75rem; }
.center { text-align: center; }
p.alert.success { margin: 1rem 0; }
[hidden] { display: none !important; }
`;
