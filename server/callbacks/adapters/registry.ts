/** The adapter of each implementor class. */
import type { Adapter } from "./mod.ts";
import { defaultAdapter } from "./default.ts";
import { crmStandardAdapter } from "./crm_standard.ts";
import { crmV65Adapter } from "./crm_v6_5.ts";

const ADAPTERS: Record<Adapter["id"], Adapter> = {
  default: defaultAdapter,
  crm_standard: crmStandardAdapter,
  crm_v6_5: crmV65Adapter,
};

/** The adapter of an app's implementor class. */
export function adapterOf(implementor: Adapter["id"]): Adapter {
  return ADAPTERS[implementor];
}
