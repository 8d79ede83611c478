/**
 * The audience's writes (contacts, contact properties, segments, topics), shared by the api's routes and
 * the contact-import saga, so that a contact imported from a file obeys exactly the rules of one created
 * through the API.
 */
export * from "./contactImports.js";
export * from "./contactProperties.js";
export * from "./contactStreams.js";
export * from "./createContact.js";
export * from "./changeContact.js";
export * from "./eraseContact.js";
export * from "./eraseSubject.js";
export * from "./segments.js";
export * from "./topics.js";
