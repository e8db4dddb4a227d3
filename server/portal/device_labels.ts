/**
 * Human labels of device properties (the payload's keys, server/launch/payload_schema.ts) in the
 * portal's languages: [English, French, Spanish, German]. A key not listed shows as itself.
 */
const LABELS: Record<string, [string, string, string, string]> = {
  name: ["Name", "Nom", "Nombre", "Name"],
  os: ["Operating system", "Système d'exploitation", "Sistema operativo", "Betriebssystem"],
  os_variant: ["OS edition", "Édition du système", "Edición del sistema", "Systemedition"],
  os_arch: [
    "OS architecture",
    "Architecture du système",
    "Arquitectura del sistema",
    "Systemarchitektur",
  ],
  os_version: ["OS version", "Version du système", "Versión del sistema", "Systemversion"],
  os_lang: ["OS language", "Langue du système", "Idioma del sistema", "Systemsprache"],
  os_sp_major: [
    "Service pack (major)",
    "Service pack (majeur)",
    "Service pack (mayor)",
    "Service Pack (Haupt)",
  ],
  os_sp_minor: [
    "Service pack (minor)",
    "Service pack (mineur)",
    "Service pack (menor)",
    "Service Pack (Neben)",
  ],
  os_sdk: ["SDK level", "Niveau SDK", "Nivel de SDK", "SDK-Stufe"],
  os_build: ["OS build", "Build du système", "Compilación del sistema", "System-Build"],
  host: ["Host name", "Nom d'hôte", "Nombre de host", "Hostname"],
  model: ["Model", "Modèle", "Modelo", "Modell"],
  serial: ["Serial number", "Numéro de série", "Número de serie", "Seriennummer"],
  serial2: [
    "Second serial number",
    "Second numéro de série",
    "Segundo número de serie",
    "Zweite Seriennummer",
  ],
  vendor: ["Vendor", "Fabricant", "Fabricante", "Hersteller"],
  manufacturer: ["Manufacturer", "Fabricant", "Fabricante", "Hersteller"],
  brand: ["Brand", "Marque", "Marca", "Marke"],
  memory: ["Memory", "Mémoire", "Memoria", "Arbeitsspeicher"],
  swap_space: ["Swap space", "Espace d'échange", "Espacio de intercambio", "Auslagerungsspeicher"],
  owner: ["Owner", "Propriétaire", "Propietario", "Besitzer"],
  cpu: ["Processor", "Processeur", "Procesador", "Prozessor"],
  cpu_arch: [
    "Processor architecture",
    "Architecture du processeur",
    "Arquitectura del procesador",
    "Prozessorarchitektur",
  ],
};

const INDEX: Record<string, number> = { en: 0, fr: 1, es: 2, de: 3 };

/** The label of device property `key` in `language` (English when not shipped). */
export function deviceLabel(key: string, language: string): string {
  return LABELS[key]?.[INDEX[language] ?? 0] ?? key;
}
