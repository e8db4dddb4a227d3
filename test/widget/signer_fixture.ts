/** The host user and contact the signer tests launch with (UTF-8 names on purpose). */
export const user = {
  id: "agent7",
  email: "zoe@example.com",
  first_name: "Zoë",
  last_name: "O'Brien",
};

/** Every parameter a launch of a new customer needs. */
export const contact = {
  referenceNumber: "CASE42",
  contactId: "C42",
  contactFirstName: "José",
  contactLastName: "Núñez",
  contactEmail: "jose@example.org",
  contactPhone: "5550001111",
};
