// Rewrites every <time data-local> (server/http/local_time.tsx) in the browser's language and time
// zone; the title keeps the exact time (seconds and zone) for hover.
const short = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const exact = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "long" });

function localTimes() {
  for (const time of document.querySelectorAll("time[data-local]")) {
    const date = new Date(time.getAttribute("datetime") ?? "");
    if (Number.isNaN(date.getTime())) continue;
    time.textContent = short.format(date);
    time.title = exact.format(date);
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", localTimes);
else localTimes();
