/** D40: the 409 of a sent slug another workspace holds (ignoring case): the update's unique violation and the create's taken slug. */
export const WORKSPACE_SLUG_TAKEN = 'A workspace with this slug already exists';

/** D25, D28: the 409 of a name another row of the workspace holds (ignoring case), per kind. */
export const NAME_TAKEN = {
  status: 'A status with this name already exists',
  label: 'A label with this name already exists',
  customField: 'A custom field with this name already exists',
} as const;
