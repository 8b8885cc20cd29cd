/** A modal or Home tab view as renderers build it and views.open/update/publish send it. */
export type ViewPayload = { type: string } & Record<string, unknown>;
