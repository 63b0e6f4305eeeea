import { BadRequestException } from '@nestjs/common';

import { codePoints, FIELD_MESSAGES, fieldBodyMessages, parseConfig, parseCreateField, parseUpdateField } from './custom-field-body';

/** D42: the definition bodies, read by hand in the contract's order (the e2e file custom-fields-write covers every message over HTTP). */
const fails = (run: () => unknown, message: string) => expect(run).toThrow(new BadRequestException(message));

describe('parseCreateField (D42)', () => {
  it('fills the defaults and normalises the sets', () => {
    expect(parseCreateField({ name: ' Effort ', type: 'text' })).toEqual({
      name: 'Effort',
      type: 'text',
      config: null,
      is_scope_restricted: false,
      granted_folder_ids: [],
      list_overrides: [],
      allowed_user_ids: null,
    });
    expect(
      parseCreateField({
        name: 'x',
        type: 'people',
        granted_folder_ids: ['2', 2, 1],
        list_overrides: [{ list_id: '4', access: 'denied' }],
        allowed_user_ids: [3, '3'],
      }),
    ).toMatchObject({
      granted_folder_ids: [2, 1],
      list_overrides: [{ list_id: 4, access: 'denied' }],
      allowed_user_ids: [3],
    });
  });

  it('null counts as not sent, but allowed_user_ids null means everyone', () => {
    expect(
      parseCreateField({ name: 'x', type: 'text', is_scope_restricted: null, granted_folder_ids: null, list_overrides: null, allowed_user_ids: null }),
    ).toMatchObject({
      is_scope_restricted: false,
      granted_folder_ids: [],
      list_overrides: [],
      allowed_user_ids: null,
    });
  });

  it('answers the first failure in the order name, type, config, ...', () => {
    fails(() => parseCreateField({ type: 'x', config: 1 }), FIELD_MESSAGES.nameRequired);
    fails(() => parseCreateField({ name: 'x', type: 'x', config: 1 }), FIELD_MESSAGES.type);
    fails(() => parseCreateField({ name: 'x', type: 'money', config: 1, is_scope_restricted: 1 }), FIELD_MESSAGES.configObject('money'));
    fails(() => parseCreateField({ name: 'x', type: 'text', is_scope_restricted: 1, granted_folder_ids: 1 }), FIELD_MESSAGES.scopeRestricted);
    fails(() => parseCreateField({ name: 'x', type: 'text', granted_folder_ids: 1, list_overrides: 1 }), FIELD_MESSAGES.folders);
    fails(() => parseCreateField({ name: 'x', type: 'text', list_overrides: 1, allowed_user_ids: 1 }), FIELD_MESSAGES.overrides);
    fails(() => parseCreateField({ name: 'x', type: 'text', allowed_user_ids: 1 }), FIELD_MESSAGES.allowedUsers);
  });
});

describe('parseUpdateField (D42)', () => {
  it('type present at all comes first; only sent fields are kept', () => {
    fails(() => parseUpdateField({ type: null, name: '' }, 'text'), FIELD_MESSAGES.typeChanged);
    expect(parseUpdateField({}, 'text')).toEqual({});
    expect(parseUpdateField({ name: null, position: null, allowed_user_ids: null }, 'text')).toEqual({ allowed_user_ids: null });
    expect(parseUpdateField({ config: null }, 'rating')).toEqual({ config: { iconName: 'star', color: null } });
    fails(() => parseUpdateField({ config: null }, 'dropdown'), FIELD_MESSAGES.configObject('dropdown'));
    fails(() => parseUpdateField({ position: 1.5 }, 'text'), FIELD_MESSAGES.position);
  });
});

describe('parseConfig (D42)', () => {
  it.each([
    ['dropdown', { options: [' a ', 'b'], x: 1 }, { options: ['a', 'b'] }],
    ['money', { currency: 'USD', decimals: 0 }, { currency: 'USD', decimals: 0 }],
    ['rating', undefined, { iconName: 'star', color: null }],
    ['rating', { color: 'red' }, { iconName: 'star', color: 'red' }],
    ['date', null, null],
  ] as const)('%s %p → %p', (type, config, stored) => {
    expect(parseConfig(type, config)).toEqual(stored);
  });

  it('lists every message of the bodies for the OpenAPI document', () => {
    expect(fieldBodyMessages(false)).toEqual(
      expect.arrayContaining([FIELD_MESSAGES.options, FIELD_MESSAGES.configNull('people'), FIELD_MESSAGES.configObject('rating')]),
    );
    expect(fieldBodyMessages(true)).toEqual(expect.arrayContaining([FIELD_MESSAGES.typeChanged, FIELD_MESSAGES.position]));
    expect(fieldBodyMessages(true)).not.toContain(FIELD_MESSAGES.type);
  });

  it('counts code points', () => {
    expect(codePoints('😀a')).toBe(2);
  });
});
