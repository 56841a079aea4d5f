/**
 * The tokens page script, served from /static/ (the CSP allows no inline
 * script). It issues a key through the public API exactly as the contract
 * describes: session cookie, X-CSRFToken copied from the csrftoken cookie,
 * the Referer the browser adds, and an Idempotency-Key. It builds DOM with
 * textContent only, so nothing the server returns is parsed as markup.
 */
export const TOKENS_JS = `'use strict';
(function () {
  var form = document.getElementById('create-token');
  if (!form) return;
  var nameInput = document.getElementById('token-name');
  var submit = form.querySelector('button[type=submit]');
  var errorBox = document.getElementById('token-error');
  var created = document.getElementById('token-created');
  var createdName = document.getElementById('created-name');
  var plaintextEl = document.getElementById('token-plaintext');
  var copyButton = document.getElementById('copy-token');
  var copyStatus = document.getElementById('copy-status');
  var list = document.getElementById('token-rows');
  var table = document.getElementById('token-table');
  var empty = document.getElementById('no-tokens');

  function readCookie(name) {
    var parts = document.cookie ? document.cookie.split(';') : [];
    for (var i = 0; i < parts.length; i++) {
      var eq = parts[i].indexOf('=');
      if (eq > -1 && parts[i].slice(0, eq).trim() === name) return decodeURIComponent(parts[i].slice(eq + 1).trim());
    }
    return '';
  }

  // crypto.randomUUID needs a secure context; a plain-http deployment still has getRandomValues.
  function idempotencyKey() {
    if (window.crypto && typeof window.crypto.randomUUID === 'function') return window.crypto.randomUUID();
    var b = window.crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join('');
    return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
  }

  function showError(message, link) {
    errorBox.textContent = '';
    var p = document.createElement('p');
    p.textContent = message;
    errorBox.appendChild(p);
    if (link) {
      var a = document.createElement('a');
      a.href = link.href;
      a.textContent = link.text;
      var q = document.createElement('p');
      q.appendChild(a);
      errorBox.appendChild(q);
    }
    errorBox.hidden = false;
  }

  function describeError(status, body) {
    var code = body && typeof body.code === 'string' ? body.code : '';
    if (code === 'name_taken') return 'You already have a token with that name. Pick another name.';
    if (code === 'csrf_failed') return 'This page’s security check failed. Reload the page and try again.';
    if (code === 'rate_limited') return 'Too many requests. Wait a moment, then try again.';
    if (body && Array.isArray(body.detail)) {
      return 'The token name was not accepted: ' + body.detail.map(function (d) { return d && d.msg ? d.msg : 'invalid value'; }).join('; ') + '.';
    }
    if (body && typeof body.message === 'string') {
      var ref = status >= 500 && body.request_id ? ' (request ' + body.request_id + ')' : '';
      return body.message + ref;
    }
    return 'The server answered ' + status + '. Try again in a moment.';
  }

  function addRow(token) {
    var tr = document.createElement('tr');
    var cells = [token.name, formatTime(token.created_at), 'never'];
    for (var i = 0; i < cells.length; i++) {
      var td = document.createElement('td');
      td.textContent = cells[i];
      if (i === 0) td.className = 'name';
      tr.appendChild(td);
    }
    list.insertBefore(tr, list.firstChild);
    table.hidden = false;
    if (empty) empty.hidden = true;
  }

  function formatTime(iso) {
    return typeof iso === 'string' ? iso.slice(0, 16).replace('T', ' ') + ' UTC' : '';
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var name = nameInput.value.trim();
    errorBox.hidden = true;
    if (!name) {
      showError('Give the token a name, such as the script or machine that will use it.');
      nameInput.focus();
      return;
    }
    submit.disabled = true;
    fetch('/api/v1/auth/token/', {
      method: 'POST',
      credentials: 'same-origin',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'X-CSRFToken': readCookie('csrftoken'),
        'Idempotency-Key': idempotencyKey()
      },
      body: JSON.stringify({ name: name })
    })
      .then(function (res) {
        return res.text().then(function (text) {
          var body = null;
          try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
          return { status: res.status, body: body };
        });
      })
      .then(function (r) {
        if (r.status === 201 && r.body && typeof r.body.plaintext === 'string') {
          createdName.textContent = r.body.name;
          plaintextEl.textContent = r.body.plaintext;
          copyStatus.textContent = 'Copy it now and store it somewhere safe: it will not be shown again.';
          created.hidden = false;
          addRow(r.body);
          form.reset();
          return;
        }
        if (r.status === 401) {
          showError('Your session has ended. Sign in again, then create the token.', {
            href: '/accounts/login/?next=' + encodeURIComponent('/settings/tokens/'),
            text: 'Sign in'
          });
          return;
        }
        showError(describeError(r.status, r.body));
      })
      .catch(function () {
        showError('Could not reach the server. Check your connection and try again.');
      })
      .then(function () {
        submit.disabled = false;
      });
  });

  copyButton.addEventListener('click', function () {
    var text = plaintextEl.textContent;
    function selected() {
      var range = document.createRange();
      range.selectNodeContents(plaintextEl);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      copyStatus.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () {
        copyStatus.textContent = 'Copied to the clipboard. It will not be shown again.';
      }, selected);
    } else {
      selected();
    }
  });
})();
`;
