/** A plant with this id is already stored with a different name or tag. */
export class PlantIdConflictError extends Error {
  override name = "PlantIdConflictError";
  constructor(readonly id: bigint | number) {
    super(`a plant with id ${id} already exists with a different name or tag`);
  }
}
