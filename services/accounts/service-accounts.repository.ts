/**
 * Collection `service_accounts`: the API's OAuth clients (./service-accounts.ts). Their secrets'
 * hashes live in `account_credentials`, beside the accounts' (./credentials.repository.ts).
 */
import type { ServiceAccount } from "../../shared/contracts/resources";
import { index, Repository } from "../../shared/store/repository";

export class ServiceAccountsRepository extends Repository<ServiceAccount> {
  readonly collectionName = "service_accounts";
  /** One per name; also serves the list, by name. */
  readonly indexes = [index({ name: 1 }, { unique: true })];

  /** A new service account; `_id` is its client id (newId(): 24-hex, what POST /oauth/token checks for). */
  insert(account: ServiceAccount): Promise<ServiceAccount> {
    return this.docs.insertOne(account);
  }

  byId(id: string): Promise<ServiceAccount | null> {
    return this.docs.findOne({ _id: id });
  }

  /** A page of them by name. */
  async page(skip: number, limit: number): Promise<{ results: ServiceAccount[]; total: number }> {
    return this.findPage({}, { sort: { name: 1 }, skip, limit });
  }

  /** Marks a change that lives elsewhere (its secret). */
  touch(id: string, at: string): Promise<unknown> {
    return this.docs.updateOne({ _id: id }, { $set: { "_meta.updated": at } });
  }

  /** The deleted service account, or null when there was none. */
  remove(id: string): Promise<ServiceAccount | null> {
    return this.docs.findOneAndDelete({ _id: id });
  }

  /** A deleted group leaves every service account. */
  leaveDeletedGroup(groupId: string, at: string): Promise<unknown> {
    return this.docs.updateMany(
      { "memberOf.groupId": groupId },
      { $pull: { memberOf: { groupId } }, $set: { "_meta.updated": at } },
    );
  }
}
