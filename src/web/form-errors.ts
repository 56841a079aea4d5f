import { html, type SafeHtml } from './html.js';

/**
 * Errors on a returned form, as the GOV.UK design system shows them: a
 * summary at the top that takes the focus when the page loads (so a screen
 * reader reads it first, with no script: `autofocus` on a focusable region),
 * each problem a link to its field; the page title starts with "Error:"; and
 * at each field its message, tied to the field by aria-describedby, the field
 * marked aria-invalid (and styled so).
 */
export interface FieldError<F extends string = string> {
  /** The field the message is about; none for a message about the whole form. */
  field?: F;
  message: string;
}

/** The page title, prefixed as GOV.UK does when the form came back with errors. */
export function errorTitle(title: string, hasErrors: boolean, prefix = 'Error'): string {
  return hasErrors ? `${prefix}: ${title}` : title;
}

/** The summary at the top of a returned form; nothing when there is no error. */
export function errorSummary(errs: FieldError[], o: { heading?: string; linkText?: (e: FieldError) => string } = {}): SafeHtml | '' {
  if (errs.length === 0) return '';
  return html`<div class="error-summary" tabindex="-1" autofocus aria-labelledby="error-summary-title">
  <div role="alert">
    <h2 class="error-summary-title" id="error-summary-title">${o.heading ?? 'There is a problem'}</h2>
    <ul class="error-summary-list">
      ${errs.map((e) => html`<li>${e.field ? html`<a href="#${e.field}">${o.linkText ? o.linkText(e) : e.message}</a>` : e.message}</li>`)}
    </ul>
  </div>
</div>`;
}

/** The attributes of a field: invalid and described by its message (and its hint, if it has one) when the error is about it. */
export function fieldAttrs(errs: FieldError[], field: string, hintId?: string): SafeHtml {
  const bad = errs.some((e) => e.field === field);
  const describedBy = [hintId, bad ? `${field}-error` : undefined].filter(Boolean).join(' ');
  return html`${describedBy ? html` aria-describedby="${describedBy}"` : ''}${bad ? html` aria-invalid="true"` : ''}`;
}

/** A field's message, between its label and the control, as GOV.UK places it; nothing when the field is fine. */
export function fieldMessage(errs: FieldError[], field: string, prefix = 'Error'): SafeHtml | '' {
  const e = errs.find((x) => x.field === field);
  return e ? html`<p class="field-error" id="${field}-error"><span class="visually-hidden">${prefix}:</span> ${e.message}</p>` : '';
}
