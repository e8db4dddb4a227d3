/**
 * One set of instruments, two ways out. Each counter, histogram and gauge of the registry keeps
 * its own values, which `render()` writes in the Prometheus text format (GET /metrics on
 * METRICS_PORT), and records the same measurements through `@opentelemetry/api`, which Deno
 * exports over OTLP when OTEL_DENO=true (without it those calls do nothing). An instrument is
 * named the OpenTelemetry way (`portal.launches`, unit `{launch}`); its Prometheus name is the one
 * an OpenTelemetry Collector's Prometheus exporter would give it: dots become underscores, a unit
 * of seconds adds `_seconds`, of bytes `_bytes`, a counter adds `_total` (`portal_launches_total`).
 * The process instruments keep the names every Prometheus client library gives them instead
 * (`process_resident_memory_bytes`), so stock dashboards and alerts work unchanged.
 */
import { type Attributes, metrics as otel } from "@opentelemetry/api";
import { log } from "../log.ts";

const meter = otel.getMeter("portal-launcher");

/** Label values by label name. */
export type Labels<L extends string> = Record<L, string>;

/** What every instrument is described by. */
export interface InstrumentSpec<L extends string> {
  /** OpenTelemetry name, dotted: `portal.launches`. */
  name: string;
  /** UCUM unit: `s`, or an annotation such as `{launch}`. */
  unit: string;
  help: string;
  labels: readonly L[];
  /**
   * The labels whose values grow with the deployment (an app's name), replaced by `_overflow` once
   * the instrument holds MAX_SERIES series; the others keep theirs. Unset: all of them.
   */
  unbounded?: readonly L[];
  /** A Prometheus name fixed by convention, used instead of the translated one. */
  prometheus?: string;
}

/** What an instrument read when it is exported (a gauge, an observed counter) is described by. */
export interface ObservedSpec<L extends string> extends InstrumentSpec<L> {
  /**
   * /metrics shows the samples' sum, unlabelled, as Prometheus client libraries do
   * (`process_cpu_seconds_total`); OTLP gets each sample with its attributes, as OpenTelemetry's
   * conventions ask (`process.cpu.time` by `cpu.mode`).
   */
  prometheusTotal?: boolean;
}

/** The labels of an instrument that has none. */
export const NO_LABELS: Record<never, string> = {};

/** One gauge reading. */
export interface Sample<L extends string> {
  labels: Labels<L>;
  value: number;
}

/** The Prometheus name of an instrument (the Collector's translation of its OpenTelemetry name). */
export function prometheusName(
  spec: { name: string; unit: string; prometheus?: string },
  kind: "counter" | "gauge" | "histogram",
): string {
  if (spec.prometheus) return spec.prometheus;
  const suffix = { s: "_seconds", By: "_bytes" }[spec.unit] ?? "";
  const base = spec.name.replaceAll(".", "_") + suffix;
  return kind === "counter" ? `${base}_total` : base;
}

function escapeLabel(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll('"', '\\"');
}

function labelText(names: readonly string[], values: readonly string[], extra = ""): string {
  const pairs = names.map((n, i) => `${n}="${escapeLabel(values[i])}"`);
  if (extra) pairs.push(extra);
  return pairs.length ? `{${pairs.join(",")}}` : "";
}

function numberText(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return Number.isNaN(value) ? "NaN" : String(value);
}

function header(name: string, help: string, kind: string): string[] {
  return [
    `# HELP ${name} ${help.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")}`,
    `# TYPE ${name} ${kind}`,
  ];
}

interface Family {
  render(): Promise<string[]>;
}

/**
 * The series one counter or histogram keeps at most. Every label of the service's instruments
 * comes from a bounded set (a route pattern, a status, an error code, a stored app name), so this
 * guards against a label that is not, and against deployments with thousands of apps (apps ×
 * outcomes): past it, a new label set counts in a series whose unbounded labels (`app`) read
 * `_overflow`, the others kept (in /metrics and over OTLP), and the instrument logs one warning.
 * Memory stays bounded whatever the requests carry.
 */
export const MAX_SERIES = 10_000;

/** The label value of the series that hold the label sets past MAX_SERIES. */
export const OVERFLOW = "_overflow";

/** Overflow series an instrument keeps at most (one per value of the labels it keeps). */
const OVERFLOW_SERIES = 1_000;

/**
 * The series of one instrument, keyed by their label values: MAX_SERIES of them, then at most
 * OVERFLOW_SERIES overflow series, then one.
 */
class SeriesStore<L extends string, S extends { labels: string[] }> {
  #values = new Map<string, S>();
  #overflowed = false;

  constructor(
    private readonly spec: InstrumentSpec<L>,
    private readonly create: (labels: string[]) => S,
  ) {}

  /** The series of `labels` (created if new), and the labels to report it under. */
  find(labels: Labels<L>): { series: S; labels: Labels<L> } {
    const series = this.get(labels);
    if (series) return { series, labels };
    if (this.#values.size < MAX_SERIES) return { series: this.#create(labels), labels };
    return this.#overflow(labels);
  }

  /** The series of `labels`, when it exists. */
  get(labels: Labels<L>): S | undefined {
    return this.#values.get(this.#key(labels));
  }

  #key(labels: Labels<L>): string {
    return this.spec.labels.map((name) => labels[name]).join("\u0001");
  }

  #create(labels: Labels<L>): S {
    const series = this.create(this.spec.labels.map((name) => labels[name]));
    this.#values.set(this.#key(labels), series);
    return series;
  }

  #overflow(given: Labels<L>): { series: S; labels: Labels<L> } {
    // The labels kept are bounded by design; if one is not after all, past OVERFLOW_SERIES more
    // every label reads _overflow.
    const open = this.#values.size < MAX_SERIES + OVERFLOW_SERIES
      ? this.spec.unbounded ?? this.spec.labels
      : this.spec.labels;
    const labels = Object.fromEntries(
      this.spec.labels.map((name) => [name, open.includes(name) ? OVERFLOW : given[name]]),
    ) as Labels<L>;
    const series = this.get(labels) ?? this.#create(labels);
    if (!this.#overflowed) {
      this.#overflowed = true;
      log.warn("metrics: too many label sets; further ones are counted as _overflow", {
        instrument: this.spec.name,
        series: MAX_SERIES,
      });
    }
    return { series, labels };
  }

  values(): IterableIterator<S> {
    return this.#values.values();
  }
}

/** A monotonic counter with labels. */
export class Counter<L extends string> implements Family {
  readonly prometheusName: string;
  #values: SeriesStore<L, { labels: string[]; value: number }>;
  #otel;

  constructor(readonly spec: InstrumentSpec<L>) {
    this.prometheusName = prometheusName(spec, "counter");
    this.#values = new SeriesStore(spec, (labels) => ({ labels, value: 0 }));
    this.#otel = meter.createCounter(spec.name, { unit: spec.unit, description: spec.help });
  }

  /** Adds `value` (default 1) to the series of `labels`. */
  add(labels: Labels<L>, value = 1): void {
    const found = this.#values.find(labels);
    found.series.value += value;
    this.#otel.add(value, found.labels as Attributes);
  }

  /** The current value of one series (0 when it never moved). */
  value(labels: Labels<L>): number {
    return this.#values.get(labels)?.value ?? 0;
  }

  render(): Promise<string[]> {
    const lines = header(this.prometheusName, this.spec.help, "counter");
    for (const { labels, value } of this.#values.values()) {
      lines.push(`${this.prometheusName}${labelText(this.spec.labels, labels)} ${value}`);
    }
    return Promise.resolve(lines);
  }
}

/** A histogram with labels and fixed bucket bounds (the same bounds in both exports). */
export class Histogram<L extends string> implements Family {
  readonly prometheusName: string;
  #values: SeriesStore<L, { labels: string[]; counts: number[]; sum: number; count: number }>;
  #otel;

  constructor(readonly spec: InstrumentSpec<L> & { buckets: readonly number[] }) {
    this.prometheusName = prometheusName(spec, "histogram");
    this.#values = new SeriesStore(
      spec,
      (labels) => ({ labels, counts: spec.buckets.map(() => 0), sum: 0, count: 0 }),
    );
    this.#otel = meter.createHistogram(spec.name, {
      unit: spec.unit,
      description: spec.help,
      advice: { explicitBucketBoundaries: [...spec.buckets] },
    });
  }

  /** Records one measurement in the series of `labels`. */
  record(labels: Labels<L>, value: number): void {
    const { series, labels: reported } = this.#values.find(labels);
    const bucket = this.spec.buckets.findIndex((bound) => value <= bound);
    if (bucket >= 0) series.counts[bucket]++;
    series.sum += value;
    series.count++;
    this.#otel.record(value, reported as Attributes);
  }

  render(): Promise<string[]> {
    const name = this.prometheusName;
    const lines = header(name, this.spec.help, "histogram");
    for (const { labels, counts, sum, count } of this.#values.values()) {
      let cumulative = 0;
      this.spec.buckets.forEach((bound, i) => {
        cumulative += counts[i];
        const le = `le="${numberText(bound)}"`;
        lines.push(`${name}_bucket${labelText(this.spec.labels, labels, le)} ${cumulative}`);
      });
      lines.push(`${name}_bucket${labelText(this.spec.labels, labels, 'le="+Inf"')} ${count}`);
      lines.push(`${name}_sum${labelText(this.spec.labels, labels)} ${sum}`);
      lines.push(`${name}_count${labelText(this.spec.labels, labels)} ${count}`);
    }
    return Promise.resolve(lines);
  }
}

/**
 * A gauge, or a counter whose total is kept elsewhere (CPU seconds), read when it is exported:
 * `collect` answers its samples then (none: no line).
 */
export class Observed<L extends string> implements Family {
  readonly prometheusName: string;

  constructor(
    readonly spec: ObservedSpec<L>,
    private readonly collect: () => Promise<Sample<L>[]>,
    readonly kind: "gauge" | "counter" = "gauge",
  ) {
    this.prometheusName = prometheusName(spec, kind);
    const options = { unit: spec.unit, description: spec.help };
    const observable = kind === "counter"
      ? meter.createObservableCounter(spec.name, options)
      : meter.createObservableGauge(spec.name, options);
    observable.addCallback(async (result) => {
      for (const { labels, value } of await this.#read()) {
        result.observe(value, labels as Attributes);
      }
    });
  }

  /** The samples; none when reading them failed (the gauge is left out, nothing else). */
  async #read(): Promise<Sample<L>[]> {
    try {
      return await this.collect();
    } catch {
      return [];
    }
  }

  async render(): Promise<string[]> {
    const lines = header(this.prometheusName, this.spec.help, this.kind);
    const samples = await this.#read();
    if (this.spec.prometheusTotal) {
      if (samples.length) {
        const total = samples.reduce((sum, { value }) => sum + value, 0);
        lines.push(`${this.prometheusName} ${numberText(total)}`);
      }
      return lines;
    }
    for (const { labels, value } of samples) {
      const values = this.spec.labels.map((name) => labels[name]);
      lines.push(
        `${this.prometheusName}${labelText(this.spec.labels, values)} ${numberText(value)}`,
      );
    }
    return lines;
  }
}

/** The instruments of this process, in the order /metrics lists them. */
export class Registry {
  #families: Family[] = [];

  /** A new counter. */
  counter<L extends string>(spec: InstrumentSpec<L>): Counter<L> {
    return this.#add(new Counter(spec));
  }

  /** A new histogram. */
  histogram<L extends string>(
    spec: InstrumentSpec<L> & { buckets: readonly number[] },
  ): Histogram<L> {
    return this.#add(new Histogram(spec));
  }

  /** A new gauge read by `collect`. */
  gauge<L extends string>(
    spec: ObservedSpec<L>,
    collect: () => Promise<Sample<L>[]>,
  ): Observed<L> {
    return this.#add(new Observed(spec, collect));
  }

  /** A new counter whose total `collect` reads when it is exported. */
  observedCounter<L extends string>(
    spec: ObservedSpec<L>,
    collect: () => Promise<Sample<L>[]>,
  ): Observed<L> {
    return this.#add(new Observed(spec, collect, "counter"));
  }

  #add<F extends Family>(family: F): F {
    this.#families.push(family);
    return family;
  }

  /** Every instrument in the Prometheus text format (version 0.0.4). */
  async render(): Promise<string> {
    const blocks = await Promise.all(this.#families.map((f) => f.render()));
    return blocks.flat().join("\n") + "\n";
  }
}
