/** The floor harness's activities: they do nothing but say when they began (bench/floor/harness.ts). */
import { Context } from '@temporalio/activity';

export interface FloorActivities {
  floorActivity(i: number): Promise<number>;
  floorLocal(i: number): Promise<number>;
}

/** `began(workflowId)` is called as each activity starts, so a harness can time start → activity running. */
export function createFloorActivities(began: (workflowId: string) => void = () => {}): FloorActivities {
  return {
    async floorActivity(i) {
      began(Context.current().info.workflowExecution?.workflowId ?? '');
      return i;
    },
    async floorLocal(i) {
      return i;
    },
  };
}
