/**
 * A date shown in the viewer's locale: rendered as UTC ("2026-11-24 03:33 UTC", readable without
 * scripts), then local-time.js (a static file) rewrites it in the browser's language and time
 * zone; the exact time (seconds, zone) is the element's title, shown on hover.
 */

/** A `<time>` element for `date` (a Date or ISO string); `fallback` when there is none. */
export function LocalTime(props: { date: Date | string | null | undefined; fallback?: string }) {
  if (props.date === null || props.date === undefined || props.date === "") {
    return <span class="empty">{props.fallback ?? "never"}</span>;
  }
  const d = new Date(props.date);
  if (Number.isNaN(d.getTime())) return <>{String(props.date)}</>;
  const iso = d.toISOString();
  return (
    <time datetime={iso} title={iso.replace("T", " ").replace("Z", " UTC")} data-local="">
      {iso.slice(0, 16).replace("T", " ")} UTC
    </time>
  );
}
