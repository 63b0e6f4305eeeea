import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A person; API keys act as their user (spec: Authentication 4). Table `users`; the schema comes from migrations. */
@Entity({ name: 'users' })
export class User {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'email', type: 'text' })
  email: string;

  @Column({ name: 'name', type: 'text' })
  name: string;

  @Column({ name: 'avatar_url', type: 'text', nullable: true })
  avatarUrl: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
