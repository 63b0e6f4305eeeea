import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';

/**
 * A response property that is a whole number (an id, a position, a count, a
 * size): `@ApiInteger({ example: 1 }) id: number;`. TypeScript's `number`
 * alone would be documented as a JSON `number`, which generated clients read
 * as a float; a property that may hold a fraction uses `@ApiProperty()` and
 * stays `number`.
 */
export const ApiInteger = (options: ApiPropertyOptions = {}): PropertyDecorator => ApiProperty({ ...options, type: 'integer' } as ApiPropertyOptions);
