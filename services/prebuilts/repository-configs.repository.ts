/**
 * Collection `repository_configs`: prebuilt repository configurations, `name` unique:
 *   { _id, name, description, tags, config: <Repository configuration, token sealed>,
 *     _meta: {created, updated, createdBy} }
 */
import type { RepositoryConfig } from "../../shared/contracts/resources";
import { NamedRepository } from "../../shared/named-documents";

export class RepositoryConfigsRepository extends NamedRepository<RepositoryConfig> {
  readonly collectionName = "repository_configs";
  readonly label = "Repository configuration";
}
