/**
 * The contributor form's script, served from /static/ (the CSP allows no
 * inline script): a preview of the chosen photo, a photo over the cap or not
 * a picture caught before minutes of uploading, a button that cannot send
 * twice, and a photo sent resumably: the words are posted first (the server
 * saves the memory and answers a ticket), then tus-js-client (served from
 * /static/tus.min.js) sends the photo in 1 MiB parts bound to that ticket,
 * retrying with backoff through dropped connections and a sleeping phone
 * (its fingerprint in localStorage), with a progress bar announced politely
 * at every quarter and a button to stop. The thanks page follows the finished
 * upload. A reload mid-upload loses the page, not the memory: the saved
 * words' answer is kept in localStorage until the upload ends, so the page
 * comes back with the words and asks for the same photo again (a page cannot
 * pick a file by itself), whose upload then carries on where it stopped.
 * Without the script (or tus) the form posts as a plain upload; the server
 * checks everything either way.
 */
export const WEB_FORM_JS = `'use strict';
(function () {
  var form = document.getElementById('memory-form');
  if (!form) return;
  var input = document.getElementById('photo');
  var figure = document.getElementById('photo-preview');
  var img = figure.querySelector('img');
  var caption = figure.querySelector('figcaption');
  var error = document.getElementById('photo-error');
  var button = form.querySelector('button[type=submit]');
  var label = button.textContent;
  var max = Number(form.getAttribute('data-max-photo-bytes')) || 0;
  var lang = form.getAttribute('data-lang') || 'en';
  var url = null;
  // The page's messages, in its language (the server put them on the form).
  function msg(name) { return form.getAttribute('data-msg-' + name) || ''; }

  function megabytes(n) {
    var mb = n / 1048576;
    try { return new Intl.NumberFormat(lang, { maximumFractionDigits: mb < 10 ? 1 : 0 }).format(mb); } catch (e) { return mb.toFixed(mb < 10 ? 1 : 0); }
  }

  function clearPreview() {
    if (url) URL.revokeObjectURL(url);
    url = null;
    img.removeAttribute('src');
    figure.hidden = true;
  }

  function showError(message, target, field) {
    target = target || error;
    field = field || input;
    target.textContent = '';
    var prefix = document.createElement('span');
    prefix.className = 'visually-hidden';
    prefix.textContent = msg('error-prefix') + ': ';
    target.appendChild(prefix);
    target.appendChild(document.createTextNode(message));
    target.hidden = false;
    field.setAttribute('aria-invalid', 'true');
    field.setAttribute('aria-describedby', field.id + '-hint ' + target.id);
  }

  input.addEventListener('change', function () {
    clearPreview();
    error.hidden = true;
    input.removeAttribute('aria-invalid');
    input.setAttribute('aria-describedby', 'photo-hint');
    var file = input.files && input.files[0];
    if (!file) return;
    if (file.type && file.type.indexOf('image/') !== 0) {
      input.value = '';
      return showError(msg('not-photo'));
    }
    if (max && file.size > max) {
      input.value = '';
      return showError(msg('too-big').replace('%SIZE%', megabytes(file.size)));
    }
    caption.textContent = '';
    url = URL.createObjectURL(file);
    img.hidden = false;
    img.src = url;
    figure.hidden = false;
  });
  // A format this browser cannot draw (HEIC on most) still goes; its name stands in for the picture.
  img.addEventListener('error', function () {
    if (!url) return;
    img.hidden = true;
    caption.textContent = input.files && input.files[0] ? input.files[0].name : '';
  });

  // The resumable path: the words first, then the photo (and a voice note or video) in parts.
  var box = document.getElementById('upload');
  var status = document.getElementById('upload-status');
  var bar = document.getElementById('upload-bar');
  var fill = bar.querySelector('.progress-fill');
  var live = document.getElementById('upload-live');
  var cancel = document.getElementById('upload-cancel');
  var skip = document.getElementById('upload-skip');
  var mediaField = document.getElementById('media-field');
  var mediaInput = document.getElementById('media');
  var mediaError = document.getElementById('media-error');
  var maxMedia = Number(form.getAttribute('data-max-media-bytes')) || 0;
  var csrfField = form.querySelector('input[name=csrfmiddlewaretoken]');
  var saved = null; // the server's answer once the words are saved: { upload_url, thanks_url, tickets }
  var pending = []; // the files still to send: { field, file }
  var sent = []; // the fields whose file is in
  var upload = null;
  var announced = 0;
  var waitingForNetwork = false;
  // The unfinished memory of this form, kept across a reload (as long as its upload tickets live).
  var UNFINISHED_KEY = 'memorybook-unfinished:' + form.getAttribute('action');
  var keepSeconds = Number(form.getAttribute('data-resume-seconds')) || 0;
  // Generous, growing waits: a phone may be out of coverage for minutes; going online again retries at once.
  var RETRY_DELAYS = [0, 1000, 3000, 5000, 10000, 20000];
  for (var r = 0; r < 40; r++) RETRY_DELAYS.push(30000);
  var resumable = !!(window.tus && window.tus.isSupported && window.fetch && window.URLSearchParams && box);
  // A voice note or video goes only this way: without the script its field stays hidden.
  if (resumable && mediaField) mediaField.hidden = false;
  if (mediaInput) {
    mediaInput.addEventListener('change', function () {
      mediaError.hidden = true;
      mediaInput.removeAttribute('aria-invalid');
      mediaInput.setAttribute('aria-describedby', 'media-hint');
      var file = mediaInput.files && mediaInput.files[0];
      if (!file) return;
      if (file.type && file.type.indexOf('audio/') !== 0 && file.type.indexOf('video/') !== 0) {
        mediaInput.value = '';
        return showError(msg('not-media'), mediaError, mediaInput);
      }
      if (maxMedia && file.size > maxMedia) {
        mediaInput.value = '';
        return showError(msg('too-big-any'), mediaError, mediaInput);
      }
    });
  }

  function remember() {
    var words = { name: form.querySelector('#name').value, text: form.querySelector('#text').value };
    try { window.localStorage.setItem(UNFINISHED_KEY, JSON.stringify({ saved: saved, sent: sent, words: words, at: Date.now() })); } catch (e) { /* private mode: no resuming after a reload */ }
  }

  function forget() {
    try { window.localStorage.removeItem(UNFINISHED_KEY); } catch (e) { /* nothing kept */ }
  }

  /** Back after a reload with a memory whose files had not all gone: its words as they were saved, and a plain request for the same file. */
  function restoreUnfinished() {
    var kept = null;
    try { kept = JSON.parse(window.localStorage.getItem(UNFINISHED_KEY) || 'null'); } catch (e) { kept = null; }
    if (!kept || !kept.saved || !kept.saved.tickets || !kept.sent) return;
    if (!(Date.now() - kept.at < keepSeconds * 1000)) return forget();
    var left = kept.saved.tickets.filter(function (t) { return kept.sent.indexOf(t.field) === -1; });
    if (!left.length) return forget();
    saved = kept.saved;
    sent = kept.sent;
    var name = form.querySelector('#name');
    var text = form.querySelector('#text');
    name.value = kept.words ? kept.words.name : name.value;
    text.value = kept.words ? kept.words.text : text.value;
    name.readOnly = true;
    text.readOnly = true;
    skip.setAttribute('href', saved.thanks_url);
    skip.hidden = false;
    cancel.hidden = true;
    box.hidden = false;
    button.textContent = msg('send-photo');
    var ask = msg(left[0].field === 'media' ? 'resume-media' : 'resume');
    status.textContent = ask;
    say(ask);
  }

  function say(text) {
    // Re-set so the same words are announced again.
    live.textContent = '';
    window.setTimeout(function () { live.textContent = text; }, 50);
  }

  function setProgress(fraction, prefix) {
    var pct = Math.max(0, Math.min(100, Math.floor(fraction * 100)));
    bar.setAttribute('aria-valuenow', String(pct));
    fill.style.transform = 'scaleX(' + pct / 100 + ')';
    var step = Math.floor(pct / 25) * 25;
    if (step > announced) {
      announced = step;
      say(msg(prefix + step));
    }
  }

  function idle(buttonLabel) {
    form.removeAttribute('data-sending');
    button.disabled = false;
    button.textContent = buttonLabel;
    cancel.hidden = true;
  }

  function failed(message, field) {
    upload = null;
    status.textContent = msg('failed');
    skip.hidden = false;
    idle(msg('send-photo'));
    if (message) field === 'media' ? showError(message, mediaError, mediaInput) : showError(message);
  }

  function messageFor(err, field) {
    var res = err && err.originalResponse;
    var code = '';
    try { code = res ? JSON.parse(res.getBody() || '{}').code || '' : ''; } catch (e) { code = ''; }
    if (code === 'validation_failed') return msg(field === 'media' ? 'not-media' : 'not-photo');
    if (code === 'payload_too_large') return msg('too-big-any');
    if (code === 'plan_limit_exceeded') return msg('no-room');
    return '';
  }

  /** Sends the first pending file; the next one follows it, the thanks page the last. */
  function sendNext() {
    if (!pending.length) {
      setProgress(1, 'p');
      forget();
      return window.location.assign(saved.thanks_url);
    }
    var item = pending[0];
    var file = item.file;
    var prefix = item.field === 'media' ? 'm' : 'p';
    var sending = msg(item.field === 'media' ? 'saved-media' : 'saved');
    var ticket = null;
    for (var i = 0; i < saved.tickets.length; i++) if (saved.tickets[i].field === item.field) ticket = saved.tickets[i];
    if (!ticket) return failed('');
    announced = 0;
    setProgress(0, prefix);
    box.hidden = false;
    cancel.hidden = false;
    skip.hidden = true;
    status.textContent = sending;
    say(sending);
    upload = new window.tus.Upload(file, {
      endpoint: saved.upload_url,
      chunkSize: 1048576,
      retryDelays: RETRY_DELAYS,
      metadata: { token: ticket.token, filename: file.name, filetype: file.type || '' },
      headers: { 'X-CSRFToken': csrfField ? csrfField.value : '' },
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      // The ticket is part of the fingerprint: the same file sent for another memory never resumes this one's upload.
      fingerprint: function (f) {
        return Promise.resolve(['memorybook', ticket.token.slice(0, 12), f.name, f.type, f.size, f.lastModified].join('-'));
      },
      // A lost connection is always worth another try (the default gives up while the browser says it is offline).
      onShouldRetry: function (err) {
        var res = err && err.originalResponse;
        var code = res ? res.getStatus() : 0;
        var again = code === 0 || code >= 500 || code === 409 || code === 423 || code === 429;
        if (again && code === 0) {
          status.textContent = msg('retrying');
          say(msg('retrying'));
        }
        return again;
      },
      onProgress: function (sent, total) {
        if (total) setProgress(sent / total, prefix);
        if (status.textContent !== sending) status.textContent = sending;
      },
      onError: function (err) {
        var res = err && err.originalResponse;
        if (!res || !res.getStatus()) {
          // Out of retries while away: carry on as soon as the browser is online again.
          waitingForNetwork = true;
          status.textContent = msg('retrying');
          return;
        }
        failed(messageFor(err, item.field), item.field);
      },
      onSuccess: function () {
        upload = null;
        sent.push(item.field);
        pending.shift();
        remember();
        sendNext();
      },
    });
    var current = upload;
    current.findPreviousUploads().then(function (previous) {
      if (previous.length) current.resumeFromPreviousUpload(previous[0]);
      current.start();
    });
  }

  window.addEventListener('online', function () {
    if (upload && waitingForNetwork) {
      waitingForNetwork = false;
      upload.start();
    }
  });

  cancel.addEventListener('click', function () {
    if (!upload) return;
    var stopping = upload;
    upload = null;
    waitingForNetwork = false;
    stopping.abort(true).catch(function () {});
    status.textContent = msg('cancelled');
    say(msg('cancelled'));
    skip.hidden = false;
    idle(msg('send-photo'));
    button.focus();
  });

  /** The words are saved first: an urlencoded post of the fields and the files' sizes, answered with the upload's path and a ticket each. */
  function saveWords(files) {
    var body = new URLSearchParams();
    var fields = form.querySelectorAll('input[type=hidden], input[type=text], textarea');
    for (var i = 0; i < fields.length; i++) body.append(fields[i].name, fields[i].value);
    body.append('uploads', files.map(function (f) { return f.field; }).join(','));
    for (var j = 0; j < files.length; j++) body.append(files[j].field + '_size', String(files[j].file.size));
    return window.fetch(form.getAttribute('action'), { method: 'POST', body: body, credentials: 'same-origin', headers: { Accept: 'application/json' } }).then(function (res) {
      if (res.status === 201) return res.json();
      // Refused (the words need a change, too many posts, the book closed): the server's page, words kept, takes over.
      return res.text().then(function (page) {
        document.open();
        document.write(page);
        document.close();
        return null;
      });
    });
  }

  /** The files chosen now: the photo, then a voice note or video. */
  function chosen() {
    var files = [];
    if (input.files && input.files[0]) files.push({ field: 'photo', file: input.files[0] });
    if (mediaInput && mediaInput.files && mediaInput.files[0]) files.push({ field: 'media', file: mediaInput.files[0] });
    return files;
  }

  form.addEventListener('submit', function (event) {
    if (form.getAttribute('data-sending')) return event.preventDefault();
    var files = chosen();
    if (saved) {
      // The words are saved already: never sent twice. What is chosen now replaces what had not gone yet.
      event.preventDefault();
      var ticketed = files.filter(function (f) {
        return sent.indexOf(f.field) === -1 && saved.tickets.some(function (t) { return t.field === f.field; });
      });
      if (!ticketed.length) {
        forget();
        return window.location.assign(saved.thanks_url);
      }
      pending = ticketed;
      form.setAttribute('data-sending', '1');
      button.disabled = true;
      button.textContent = msg('sending');
      error.hidden = true;
      return sendNext();
    }
    if (resumable && files.length) {
      event.preventDefault();
      form.setAttribute('data-sending', '1');
      button.disabled = true;
      button.textContent = msg('sending');
      error.hidden = true;
      saveWords(files).then(function (answer) {
        if (!answer) return;
        saved = answer;
        pending = files;
        remember();
        // The words are in: they stay as they are on the page, and cannot be sent twice.
        var words = form.querySelectorAll('input[type=text], textarea');
        for (var i = 0; i < words.length; i++) words[i].readOnly = true;
        skip.setAttribute('href', saved.thanks_url);
        sendNext();
      }, function () {
        idle(label);
        box.hidden = false;
        status.textContent = msg('no-connection');
        say(msg('no-connection'));
        cancel.hidden = true;
      });
      return;
    }
    form.setAttribute('data-sending', '1');
    button.disabled = true;
    button.textContent = msg('sending');
  });
  // Finishing without the file ends the memory here too.
  skip.addEventListener('click', forget);
  if (resumable) restoreUnfinished();

  // Coming back to the page (the back button) finds it ready to send again.
  window.addEventListener('pageshow', function () {
    if (upload) return;
    form.removeAttribute('data-sending');
    button.disabled = false;
    button.textContent = saved ? msg('send-photo') : label;
  });
})();
`;
