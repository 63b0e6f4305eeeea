/** D40: the 409 of a sent slug another workspace holds (ignoring case): the update's unique violation and the create's taken slug. */
export const WORKSPACE_SLUG_TAKEN = 'A workspace with this slug already exists';
