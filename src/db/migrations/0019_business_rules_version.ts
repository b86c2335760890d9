/**
 * Which Auth Rules apply to a card also depends on its account holder's business account (a rule
 * of a business applies to its authorized users' cards). Moving an authorized user to another
 * business (`PATCH /v1/account_holders`) therefore gives the program a new `rules_version` too, by
 * trigger as in 0010: an authorization never reuses the rules it found for the card under the old
 * business (auth_rules/evaluator.ts).
 */
import { sql, type Kysely } from 'kysely';
import { engineOf } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === 'postgres') {
    // programs_new_rules_version() is 0010's: it stamps NEW.program_id's program.
    await sql`CREATE TRIGGER account_holders_new_rules_version AFTER UPDATE OF business_account_token ON account_holders
      FOR EACH ROW WHEN (OLD.business_account_token IS DISTINCT FROM NEW.business_account_token)
      EXECUTE FUNCTION programs_new_rules_version()`.execute(db);
    return;
  }
  await sql`CREATE TRIGGER account_holders_new_rules_version AFTER UPDATE OF business_account_token ON account_holders
    WHEN OLD.business_account_token IS NOT NEW.business_account_token
    BEGIN UPDATE programs SET rules_version = lower(hex(randomblob(16))) WHERE id = NEW.program_id; END`.execute(db);
}
