/** The element's shadow styles: a block, a 44 px button, the inline error, the frame. */
import { css } from "lit";

export const launcherStyles = css`
  :host {
    display: block;
    font: inherit;
  }
  :host([hidden]) {
    display: none;
  }
  button {
    font: inherit;
    cursor: pointer;
    min-height: 44px;
    padding: 0.4em 1em;
    border-radius: 4px;
    border: 1px solid #1d4ed8;
    background: #1d4ed8;
    color: #fff;
  }
  button:disabled {
    opacity: 0.6;
    cursor: default;
  }
  button:focus-visible {
    outline: 3px solid #f59e0b;
    outline-offset: 2px;
  }
  .error {
    margin-top: 0.5em;
    padding: 0.5em 0.75em;
    border: 1px solid #c53030;
    background: #fde8e8;
    color: #742a2a;
    border-radius: 4px;
  }
  .error ul {
    margin: 0.25em 0 0;
    padding-left: 1.25em;
  }
  .error button {
    margin-top: 0.5em;
  }
  iframe {
    display: block;
    box-sizing: border-box;
    margin-top: 0.5em;
    border: 1px solid #d9e2ec;
    width: var(--portal-launcher-frame-width, 100%);
    height: var(--portal-launcher-frame-height, 600px);
  }
  /* The warm-up frame of portal-url, and the portal's frame while it waits: not shown. */
  iframe[hidden] {
    display: none;
  }
  iframe.autoresize {
    min-height: var(--portal-launcher-frame-min-height, 200px);
    max-height: var(--portal-launcher-frame-max-height, none);
  }
`;
