/**
 * The contributor form's script, served from /static/ (the CSP allows no
 * inline script). Only comfort: a preview of the chosen photo, a photo over
 * the cap or not a picture is caught before minutes of uploading, and the
 * button cannot send twice. The form works the same without it; the server
 * checks everything again.
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

  function showError(message) {
    error.textContent = '';
    var prefix = document.createElement('span');
    prefix.className = 'visually-hidden';
    prefix.textContent = msg('error-prefix') + ': ';
    error.appendChild(prefix);
    error.appendChild(document.createTextNode(message));
    error.hidden = false;
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', 'photo-hint photo-error');
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

  form.addEventListener('submit', function (event) {
    if (form.getAttribute('data-sending')) return event.preventDefault();
    form.setAttribute('data-sending', '1');
    button.disabled = true;
    button.textContent = msg('sending');
  });
  // Coming back to the page (the back button) finds it ready to send again.
  window.addEventListener('pageshow', function () {
    form.removeAttribute('data-sending');
    button.disabled = false;
    button.textContent = label;
  });
})();
`;
