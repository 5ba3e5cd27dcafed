/**
 * Which of RAGFlow's REST test files run against agent-canvas, grouped by resource, and which are
 * left aside and why. Paths are relative to RAGFlow's `test/testcases/`.
 */

export interface Resource {
  files: string[];
}

const httpApi = 'test_http_api';
const datasetMgmt = `${httpApi}/test_dataset_management`;
const fileMgmt = `${httpApi}/test_file_management_within_dataset`;
const chunkMgmt = `${httpApi}/test_chunk_management_within_dataset`;
const sessionMgmt = `${httpApi}/test_session_management`;

export const RESOURCES: Record<string, Resource> = {
  agents: { files: ['restful_api/test_agents.py', 'restful_api/test_agents_go_mode.py'] },
  sessions: { files: [`${sessionMgmt}/test_agent_sessions.py`, `${sessionMgmt}/test_agent_completions.py`] },
  tasks: { files: ['restful_api/test_task_routes.py'] },
  datasets: {
    files: [
      'restful_api/test_datasets.py',
      ...[
        'test_create_dataset.py',
        'test_delete_datasets.py',
        'test_get_dataset.py',
        'test_list_datasets.py',
        'test_update_dataset.py',
        'test_flattened_metadata.py',
        'test_index_api.py',
        'test_ingestion_logs.py',
        'test_ingestion_summary.py',
        'test_knowledge_graph.py',
        'test_search.py',
        'test_tags.py',
      ].map((f) => `${datasetMgmt}/${f}`),
    ],
  },
  documents: {
    files: [
      'restful_api/test_documents.py',
      'restful_api/test_document_raw_routes.py',
      ...[
        'test_upload_documents.py',
        'test_list_documents.py',
        'test_update_document.py',
        'test_delete_documents.py',
        'test_download_document.py',
        'test_parse_documents.py',
        'test_stop_parse_documents.py',
        'test_metadata_batch_update.py',
        'test_metadata_config.py',
        'test_metadata_retrieval.py',
        'test_metadata_summary.py',
      ].map((f) => `${fileMgmt}/${f}`),
    ],
  },
  chunks: {
    files: [
      'restful_api/test_chunks.py',
      ...['test_add_chunk.py', 'test_list_chunks.py', 'test_update_chunk.py', 'test_delete_chunks.py'].map((f) => `${chunkMgmt}/${f}`),
    ],
  },
  retrieval: { files: ['restful_api/test_retrieval.py', `${chunkMgmt}/test_retrieval_chunks.py`] },
  router: { files: ['restful_api/test_router_contracts.py', `${httpApi}/test_router_errors.py`] },
};

/** Files (or folders) not run, with the reason. */
export const EXCLUDED: Array<{ paths: string[]; reason: string }> = [
  {
    reason: 'chat assistants (`/chats`, their sessions and their OpenAI route): not part of agent-canvas',
    paths: [
      'restful_api/test_chats.py',
      'restful_api/test_sessions.py (chat-assistant sessions)',
      'restful_api/test_openai_compatible.py (`/openai/{chat_id}/chat/completions`)',
      `${httpApi}/test_chat_assistant_management/`,
      `${httpApi}/test_chat_management/`,
      ...[
        'test_chat_completions.py',
        'test_chat_completions_openai.py',
        'test_create_session_with_chat_assistant.py',
        'test_delete_sessions_with_chat_assistant.py',
        'test_list_sessions_with_chat_assistant.py',
        'test_update_session_with_chat_assistant.py',
        'test_related_questions.py',
      ].map((f) => `${sessionMgmt}/${f}`),
    ],
  },
  {
    reason: "RAGFlow-server-only unit tests (`*_routes_unit.py`): they import RAGFlow's Python server modules with stubs and send no HTTP",
    paths: [
      'restful_api/*_routes_unit.py',
      `${datasetMgmt}/test_dify_retrieval_routes_unit.py`,
      `${fileMgmt}/test_doc_sdk_routes_unit.py`,
      `${sessionMgmt}/test_session_sdk_routes_unit.py`,
      `${httpApi}/test_chat_assistant_management/test_chat_sdk_routes_unit.py`,
    ],
  },
  {
    reason: 'RAGFlow features outside agent-canvas: memories and messages, search apps, system/token admin, Langfuse, plugins, the file manager',
    paths: [
      'restful_api/test_memories_messages.py',
      'restful_api/test_memory_messages.py',
      'restful_api/test_searches.py',
      'restful_api/test_system.py',
      'restful_api/test_langfuse_routes.py',
      'restful_api/test_plugin_tools.py',
      `${httpApi}/test_file_app/`,
    ],
  },
  {
    reason: "comparisons of RAGFlow's Python and Go servers (both at fixed ports, 9380 and 9384)",
    paths: ['restful_api/test_search_datasets_consistency.py'],
  },
];

/** Single tests deselected inside included files (pytest node ids relative to the suite root). */
export const DESELECTED: string[] = [];

/** The resource a JUnit classname (`test.testcases.restful_api.test_agents[.TestClass]`) belongs to. */
export function resourceOf(classname: string): string {
  const modulePath = classname.replace(/^test\.testcases\./, '').replace(/\./g, '/');
  for (const [name, resource] of Object.entries(RESOURCES)) {
    for (const file of resource.files) {
      const stem = file.replace(/\.py$/, '');
      if (modulePath === stem || modulePath.startsWith(`${stem}/`)) return name;
    }
  }
  return 'other';
}

/** The RAGFlow test file (relative to test/testcases) a JUnit classname belongs to. */
export function fileOf(classname: string): string {
  const modulePath = classname.replace(/^test\.testcases\./, '').replace(/\./g, '/');
  for (const resource of Object.values(RESOURCES)) {
    for (const file of resource.files) {
      const stem = file.replace(/\.py$/, '');
      if (modulePath === stem || modulePath.startsWith(`${stem}/`)) return file;
    }
  }
  return modulePath;
}
